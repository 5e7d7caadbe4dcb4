#include "vnsim/real_exec/step_runner.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>

#include "thread_comm.hpp"
#include "vnsim/real_exec/gradient_model.hpp"

namespace vnsim::real_exec {
namespace {

using testing::run_ranks;

constexpr std::size_t kParams = 257;

JobShape shape(long long batch, std::vector<int> vn) {
  JobShape s;
  s.global_batch = batch;
  s.vn_per_rank = std::move(vn);
  s.flops_fixed = 2e4;  // small real GEMM work
  s.flops_per_sample = 1e3;
  return s;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Parameters after `steps` steps of a job split as `vn` over vn.size() ranks.
std::vector<double> train(const std::vector<int>& vn, long long batch, int steps) {
  std::vector<double> out;
  std::mutex m;
  auto backend = make_cpu_backend();
  run_ranks(static_cast<int>(vn.size()), [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    for (int it = 0; it < steps; ++it) run_step(*plane, shape(batch, vn), comm.rank(), it);
    if (comm.rank() == 0) {
      std::lock_guard<std::mutex> lock(m);
      out = plane->read_params();
    }
  });
  return out;
}

TEST(StepRunner, AllReducedBufferEqualsTheSumOfTheRanksBuffers) {
  auto backend = make_cpu_backend();
  run_ranks(3, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    plane->zero_grad();
    // Rank r adds samples [10r, 10r + 4 + r).
    plane->micro_batch(10 * comm.rank(), 4 + comm.rank(), 0);
    plane->allreduce_grad();
    std::vector<double> expected(kParams, 0.0);
    for (int r = 0; r < 3; ++r) accumulate_samples(expected, 10 * r, 4 + r);
    EXPECT_EQ(plane->read_grad(), expected);
  });
}

TEST(StepRunner, VirtualNodesOnFewRanksTrainExactlyLikeOneBigBatch) {
  const auto reference = train({1}, 48, 4);       // one rank, one 48-sample micro-batch per step
  EXPECT_EQ(train({4, 4, 4}, 48, 4), reference);  // 12 virtual nodes on 3 ranks
  EXPECT_EQ(train({16}, 48, 4), reference);       // 16 virtual nodes on one rank
  EXPECT_NE(train({1}, 48, 3), reference);        // the check can fail
}

TEST(StepRunner, HeterogeneousSplitWithWeightedAveragingMatchesTheGlobalMean) {
  // 50 samples over 7 virtual nodes (8,7,7,7,7,7,7): ranks get 8 and 42 samples.
  EXPECT_EQ(train({1, 6}, 50, 3), train({1}, 50, 3));
}

TEST(StepRunner, ResizeWithParameterBroadcastKeepsTheTrajectory) {
  // 2 steps on 2 ranks, then the job moves in place to 3 ranks: rank 1 of
  // the old set is the root that broadcasts; 2 more steps. The result must
  // equal 4 steps on one rank, and all new members must agree after the broadcast.
  const auto reference = train({1}, 30, 4);
  std::vector<double> carried;
  auto backend = make_cpu_backend();
  run_ranks(2, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    for (int it = 0; it < 2; ++it) run_step(*plane, shape(30, {2, 1}), comm.rank(), it);
    if (comm.rank() == 1) carried = plane->read_params();
  });
  std::vector<double> after;
  std::mutex m;
  run_ranks(3, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);  // fresh planes hold the initial parameters
    if (comm.rank() == 2) plane->write_params(carried);
    plane->broadcast_params(2);
    std::uint64_t h = 0;
    EXPECT_TRUE(parameters_agree(comm, *plane, h));
    for (int it = 2; it < 4; ++it) run_step(*plane, shape(30, {1, 1, 1}), comm.rank(), it);
    if (comm.rank() == 0) {
      std::lock_guard<std::mutex> lock(m);
      after = plane->read_params();
    }
  });
  EXPECT_EQ(after, reference);
}

TEST(StepRunner, ParametersAgreeDetectsADivergentRank) {
  auto backend = make_cpu_backend();
  run_ranks(3, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    std::uint64_t h = 0;
    EXPECT_TRUE(parameters_agree(comm, *plane, h));
    if (comm.rank() == 1) {
      auto p = plane->read_params();
      p[3] += 1;
      plane->write_params(p);
    }
    EXPECT_FALSE(parameters_agree(comm, *plane, h));
  });
}

TEST(StepRunner, LoopStopsAtTheStepTheLeaderIsToldAndCheckpoints) {
  auto backend = make_cpu_backend();
  std::vector<long long> reported, checkpoints;
  run_ranks(2, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    LoopHooks hooks;
    hooks.clock = now_s;
    hooks.checkpoint_every = 2;
    // The command arrives before step 3: steps 0, 1, 2 run.
    hooks.poll_command = [&] { return reported.size() == 3 ? Command::Stop : Command::None; };
    hooks.report = [&](const IterationReport& r) { reported.push_back(r.iteration); };
    hooks.checkpoint = [&](long long done, const std::vector<double>&) { checkpoints.push_back(done); };
    const LoopResult r = run_job_loop(comm, *plane, shape(8, {1, 1}), 0, 10, 0, hooks);
    EXPECT_EQ(r.reason, LoopResult::Reason::Stopped);
    EXPECT_EQ(r.iterations_done, 3);
    EXPECT_TRUE(r.params_consistent);
  });
  EXPECT_EQ(reported, (std::vector<long long>{0, 1, 2}));
  EXPECT_EQ(checkpoints, (std::vector<long long>{2, 3}));  // periodic after step 1, then at the stop
}

TEST(StepRunner, AFailingMemberStopsEveryoneAndReportsTheLastCheckpoint) {
  auto backend = make_cpu_backend();
  run_ranks(3, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    LoopHooks hooks;
    hooks.clock = now_s;
    hooks.checkpoint_every = 2;
    hooks.fails_at = [&](long long it) { return it == 5 && comm.rank() == 2; };
    const LoopResult r = run_job_loop(comm, *plane, shape(9, {1, 1, 1}), 0, 10, 0, hooks);
    EXPECT_EQ(r.reason, LoopResult::Reason::Failed);
    EXPECT_EQ(r.failed_rank, 2);
    EXPECT_EQ(r.iterations_done, 4);  // checkpoints after steps 1 and 3 (2 and 4 done)
  });
}

TEST(StepRunner, LoopFinishesAllStepsWithConsistentParameters) {
  auto backend = make_cpu_backend();
  run_ranks(2, [&](GroupComm& comm) {
    auto plane = backend->open(comm, kParams);
    LoopHooks hooks;
    hooks.clock = now_s;
    const LoopResult r = run_job_loop(comm, *plane, shape(6, {2, 1}), 2, 5, 0, hooks);
    EXPECT_EQ(r.reason, LoopResult::Reason::Finished);
    EXPECT_EQ(r.iterations_done, 5);
    EXPECT_TRUE(r.params_consistent);
  });
}

// The cpu plane with fixed per-rank timings: rank 0 computes 1 ms and then
// spends 5.5 ms in the all-reduce (4 ms waiting for rank 1), which computes
// 5 ms and all-reduces in 1 ms: the collective ends at 6.5 ms on rank 0.
class FixedTimingPlane final : public DataPlane {
 public:
  FixedTimingPlane(std::unique_ptr<DataPlane> inner, StepTiming timing)
      : inner_(std::move(inner)), timing_(timing) {}
  std::size_t parameter_count() const override { return inner_->parameter_count(); }
  void zero_grad() override { inner_->zero_grad(); }
  void micro_batch(long long first, long long samples, double flops) override {
    inner_->micro_batch(first, samples, flops);
  }
  void allreduce_grad() override { inner_->allreduce_grad(); }
  void apply_update(long long total, double lr) override { inner_->apply_update(total, lr); }
  void broadcast_params(int root) override { inner_->broadcast_params(root); }
  std::vector<double> read_params() override { return inner_->read_params(); }
  void write_params(const std::vector<double>& p) override { inner_->write_params(p); }
  std::vector<double> read_grad() override { return inner_->read_grad(); }
  StepTiming take_timing() override {
    inner_->take_timing();
    return timing_;
  }

 private:
  std::unique_ptr<DataPlane> inner_;
  StepTiming timing_;
};

TEST(StepRunner, TheLogGetsTheSlowestComputeAndTheAllReduceSpanAfterIt) {
  // The leader's own all-reduce (5.5 ms) is mostly waiting for rank 1, and
  // rank 1's own (1 ms) misses the 0.5 ms the leader still needed after it:
  // the step's all-reduce is the span from the slowest compute (5 ms) to
  // the last exit (6.5 ms).
  auto backend = make_cpu_backend();
  std::vector<IterationReport> reports;
  run_ranks(2, [&](GroupComm& comm) {
    const bool leader = comm.rank() == 0;
    FixedTimingPlane plane(backend->open(comm, kParams),
                           leader ? StepTiming{0.001, 0.0055} : StepTiming{0.005, 0.001});
    LoopHooks hooks;
    hooks.clock = now_s;
    hooks.report = [&](const IterationReport& r) { reports.push_back(r); };
    run_job_loop(comm, plane, shape(4, {1, 1}), 0, 2, 0, hooks);
  });
  ASSERT_EQ(reports.size(), 2u);
  for (const IterationReport& r : reports) {
    EXPECT_NEAR(r.timing.compute_s, 0.005, 1e-9);
    EXPECT_NEAR(r.timing.allreduce_s, 0.0015, 1e-9);
  }
}

}  // namespace
}  // namespace vnsim::real_exec
