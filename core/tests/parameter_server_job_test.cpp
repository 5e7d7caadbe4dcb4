// A trace's parameter-server job (JobSpec::ps) on a placement: the split into
// servers and workers, compute per worker with stragglers, the idle-network
// iteration time of both modes, and the rejection reasons of bad specs.
#include "vnsim/core/parameter_server_job.hpp"

#include <gtest/gtest.h>

#include "test_clusters.hpp"
#include "vnsim/core/feasibility.hpp"

namespace vnsim {
namespace {

JobSpec ps_job(const std::string& model, int gpus, int servers) {
  JobSpec j;
  j.id = "ps";
  j.model = model;
  j.gpus = gpus;
  j.global_batch = 64;
  j.iterations = 10;
  j.ps.servers = servers;
  return j;
}

class ParameterServerJob : public ::testing::Test {
 protected:
  Cluster cluster{testing::test_cluster("t4-1x3x2")};  // 3 nodes x 2 T4
  Topology topo{cluster};
  const ModelCatalog& models = ModelCatalog::builtin();
  const std::string model_name = models.names().front();
  const ModelParams& model = models.at(model_name);
};

TEST_F(ParameterServerJob, FirstGpusServeAndEveryWorkerComputesItsShareOfTheBatch) {
  const JobSpec job = ps_job(model_name, 5, 1);
  const PsJob ps = parameter_server_job(topo, GpuCatalog::builtin(), model, job, {0, 2, 3, 4, 5});
  EXPECT_EQ(ps.servers, std::vector<GpuId>{0});
  EXPECT_EQ(ps.workers, (std::vector<GpuId>{2, 3, 4, 5}));
  EXPECT_EQ(ps.gradient_bytes, model.gradient_bytes);
  ASSERT_EQ(ps.worker_compute_s.size(), 4u);
  // 64 samples over 4 workers, on the reference GPU (speed 1).
  for (double c : ps.worker_compute_s) EXPECT_DOUBLE_EQ(c, model.micro_batch_time_s(16));
  EXPECT_DOUBLE_EQ(parameter_server_iteration_s(topo, GpuCatalog::builtin(), model, job, {0, 2, 3, 4, 5}),
                   ps_sync_step_s(topo, ps));
}

TEST_F(ParameterServerJob, StragglersSlowTheDrawnWorkers) {
  JobSpec job = ps_job(model_name, 5, 1);
  job.ps.straggler_probability = 1;
  job.ps.straggler_min_slowdown = 3;
  job.ps.straggler_max_slowdown = 3;
  const PsJob ps = parameter_server_job(topo, GpuCatalog::builtin(), model, job, {0, 2, 3, 4, 5});
  for (double c : ps.worker_compute_s) EXPECT_DOUBLE_EQ(c, 3 * model.micro_batch_time_s(16));
}

TEST_F(ParameterServerJob, AsynchronousIterationIsOneUpdate) {
  JobSpec job = ps_job(model_name, 5, 1);
  job.ps.async = true;
  const std::vector<GpuId> placement = {0, 2, 3, 4, 5};
  const PsJob ps = parameter_server_job(topo, GpuCatalog::builtin(), model, job, placement);
  EXPECT_DOUBLE_EQ(parameter_server_iteration_s(topo, GpuCatalog::builtin(), model, job, placement),
                   1.0 / ps_async_rate(topo, ps).updates_per_s);
}

TEST_F(ParameterServerJob, BadSpecsAreRejectedWithAReason) {
  EXPECT_EQ(why_parameter_server_invalid(ps_job(model_name, 4, 0)), std::nullopt);
  EXPECT_EQ(why_parameter_server_invalid(ps_job(model_name, 4, 4)),
            "parameter-server job needs a worker: ps_servers (4) must be < gpus (4)");
  JobSpec layout = ps_job(model_name, 4, 1);
  layout.tp = 2;
  EXPECT_EQ(why_parameter_server_invalid(layout),
            "a parameter-server job cannot have a tp/pp layout or a transformer model");
  JobSpec straggly = ps_job(model_name, 4, 1);
  straggly.ps.straggler_min_slowdown = 0.5;
  EXPECT_EQ(why_parameter_server_invalid(straggly),
            "need 1 <= straggler_min_slowdown <= straggler_max_slowdown");
  // The reason reaches jobs.csv through why_infeasible.
  EXPECT_EQ(why_infeasible(ps_job(model_name, 4, 4), cluster, GpuCatalog::builtin(), models),
            "parameter-server job needs a worker: ps_servers (4) must be < gpus (4)");
  EXPECT_THROW(
      parameter_server_job(topo, GpuCatalog::builtin(), model, ps_job(model_name, 4, 4), {0, 1, 2, 3}),
      std::invalid_argument);
}

}  // namespace
}  // namespace vnsim
