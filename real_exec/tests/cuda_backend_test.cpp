// The cuda backend on one GPU (a one-rank NCCL communicator): skipped when no
// GPU is visible, as on CI and on machines without a driver.
#include <gtest/gtest.h>

#include "thread_comm.hpp"
#include "vnsim/real_exec/gradient_model.hpp"
#include "vnsim/real_exec/step_runner.hpp"
#include "vnsim_cuda_backend.hpp"

namespace vnsim::real_exec {
namespace {

TEST(CudaBackend, OneRankStepMatchesTheHostGradientModel) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU visible";
  testing::ThreadGroup group(1);
  testing::ThreadComm comm(group, 0);
  auto plane = make_cuda_backend()->open(comm, 1000);
  // 3 virtual nodes on the one rank, global batch 10: samples 0..9 of step 0.
  JobShape shape;
  shape.global_batch = 10;
  shape.vn_per_rank = {3};
  shape.flops_fixed = 1e9;
  const StepTiming t = run_step(*plane, shape, 0, 0);
  EXPECT_GT(t.compute_s, 0);
  std::vector<double> grad(1000, 0.0), params = initial_parameters(1000);
  accumulate_samples(grad, 0, 10);
  apply_sgd(params, grad, 10, shape.learning_rate);
  EXPECT_EQ(plane->read_grad(), grad);
  // The update may round differently (the GPU's axpy can fuse multiply-add).
  const std::vector<double> device_params = plane->read_params();
  ASSERT_EQ(device_params.size(), params.size());
  for (std::size_t j = 0; j < params.size(); ++j) EXPECT_NEAR(device_params[j], params[j], 1e-12) << j;
}

}  // namespace
}  // namespace vnsim::real_exec
