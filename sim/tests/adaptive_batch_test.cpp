// Adaptive batch size in the engine (issue 6): a ResizeJob that names a new
// global batch re-expresses the work left through the statistical efficiency
// (core/goodput.hpp, docs/POLICIES.md "Adaptive batch size in the engine").
#include <gtest/gtest.h>

#include <optional>

#include "sim_test_support.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// Starts the job on GPU 0 and at `at_s` changes its batch in place.
class BatchChangePolicy : public Policy {
 public:
  BatchChangePolicy(double at_s, int new_batch, int new_vn) : at_s_(at_s), batch_(new_batch), vn_(new_vn) {}
  std::string name() const override { return "batch-change"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    std::vector<Decision> out;
    if (!acted_ && batch_ > 0 && in.now_s >= at_s_ && !in.running.empty()) {
      acted_ = true;
      out.push_back(ResizeJob{0, Placement{{0}, {vn_}}, ResizeMode::InPlace, batch_});
      return out;
    }
    if (!in.queued.empty() && in.view->is_free(0))
      out.push_back(
          StartJob{in.queued[0].index, Placement{{0}, {in.queued[0].spec->effective_virtual_nodes()}}});
    return out;
  }
  std::optional<double> next_timer_s(double now_s) const override {
    if (!acted_ && batch_ > 0 && at_s_ > now_s) return at_s_;
    return std::nullopt;
  }

 private:
  double at_s_;
  int batch_;
  int vn_;
  bool acted_ = false;
};

double iteration_s(const Cluster& cluster, const ModelParams& model, int vn, int batch) {
  const Topology topo(cluster);
  return iteration_time(topo, GpuCatalog::builtin(), model, Placement{{0}, {vn}}, batch).total_s;
}

TEST(AdaptiveBatch, BatchChangeFollowsStatisticalEfficiency) {
  const Cluster cluster(testing::test_cluster("sim-1x1x2"));
  const ModelParams& bert = ModelCatalog::builtin().at("bert");
  JobSpec job = testing::make_job("j", 0.0, bert, 1, 1000);
  job.virtual_nodes = 2;
  job.global_batch = 8;
  const double t8 = iteration_s(cluster, bert, 2, 8);
  const double t16 = iteration_s(cluster, bert, 2, 16);
  const double at = 10.5 * t8;  // 10 whole iterations done at batch 8
  BatchChangePolicy policy(at, 16, 2);
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {job}, policy, ReplayOptions{});
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  // Hand computation. bert: M0 = 12, first epoch up to progress 7,387
  // (noise_scale.json, per-batch statistics); the whole job (1,000 steps at 8:
  // 672.9 units) stays there. phi = 12 x grad_var / grad_sqr of the batch:
  //   at 8 (below M0: batch 12's statistics): 12 x 6.89402e15 / 1.95591e14 = 422.965
  //   at 16 (a third of the way from 12 to 24): sqr = 1.95591e14 + (8.2892e13 - 1.95591e14) / 3,
  //   var = 6.89402e15 + (7.41252e15 - 6.89402e15) / 3, phi = 536.639.
  // Progress per step (M/M0)(phi + M0)/(phi + M):
  //   at 8: 0.666667 x 434.965/430.965 = 0.672854
  //   at 16: 1.333333 x 548.639/552.639 = 1.323683
  // 990 steps left at 8 = 666.13 units = 503.24 steps at 16 -> 503.
  const double rate8 = 8.0 / 12 * 434.965 / 430.965;
  const double rate16 = 16.0 / 12 * 548.639 / 552.639;
  EXPECT_NEAR(990 * rate8 / rate16, 503.24, 0.01);
  // An in-place resize on the same GPU only rebuilds the communicator (1 s).
  EXPECT_NEAR(r.jobs[0].finish_s, at + 1.0 + 503 * t16, 1e-6);
}

TEST(AdaptiveBatch, WithoutABatchChangeTheJobRunsItsIterations) {
  const Cluster cluster(testing::test_cluster("sim-1x1x2"));
  const ModelParams& bert = ModelCatalog::builtin().at("bert");
  JobSpec job = testing::make_job("j", 0.0, bert, 1, 1000);
  job.virtual_nodes = 2;
  job.global_batch = 8;
  BatchChangePolicy policy(0, 0, 2);
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {job}, policy, ReplayOptions{});
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_NEAR(r.jobs[0].finish_s, 1000 * iteration_s(cluster, bert, 2, 8), 1e-6);
}

}  // namespace
}  // namespace vnsim
