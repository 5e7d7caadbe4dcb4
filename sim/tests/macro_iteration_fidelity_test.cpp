// Ring engines against per-iteration simulation (issues 4 and 21): a small
// contended trace, generated here from a fixed seed, replayed with every
// iteration simulated by actors (M = 0, the reference) and with each ring
// engine. The actor engine's defaults (M = 100, per-iteration while
// contended) must give every job's JCT within 1%; quiet rings and the
// default fluid rings have the looser bounds their tests state.
// SimGrid allows one engine per process, so each replay runs in a forked
// child that sends its results back through a pipe.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>

#include "sim_test_support.hpp"
#include "vnsim/policies/testing/spread_fifo.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// The cluster, tests/clusters/sim-2x4x4-os2.json: 2 racks of 4 nodes of 4 GPUs.
constexpr int kNodesPerRack = 4;

// 244 jobs: half single-node (1, 2 or 4 GPUs), half 8 or 16 GPUs; 50-300
// iterations of a built-in model; Poisson arrivals every 20 s on average.
// Integer arithmetic on the raw engine output keeps the trace identical on
// every standard library.
std::vector<JobSpec> contended_trace() {
  std::mt19937_64 rng(20261122);
  const ModelCatalog& models = ModelCatalog::builtin();
  const std::vector<std::string> names = models.names();
  const int sizes[] = {1, 2, 4, 8, 16, 8};
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 0; i < 244; ++i) {
    const ModelParams& m = models.at(names[rng() % names.size()]);
    JobSpec j = testing::make_job("f" + std::to_string(i), t, m, sizes[rng() % 6],
                                  50 + static_cast<long long>(rng() % 251));
    jobs.push_back(j);
    // Exponential gap, mean 20 s, from a 53-bit uniform.
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    t += -20.0 * std::log1p(-u);
  }
  return jobs;
}

struct JobTimes {
  double start_s = -1;
  double finish_s = -1;
  int nodes = 0;  // nodes of its placement
};

struct RunResult {
  std::vector<JobTimes> jobs;
  double wall_s = 0;
};

// The actor engine (`--actor-rings`) with these macro-iterations.
ReplayOptions macro_options(int macro_iterations, bool shorten_macro_when_contended) {
  ReplayOptions opts = testing::actor_ring_options();
  opts.macro_iterations = macro_iterations;
  opts.shorten_macro_when_contended = shorten_macro_when_contended;
  return opts;
}

RunResult replay_in_child(const ReplayOptions& opts, const std::vector<JobSpec>& jobs = contended_trace()) {
  std::fflush(stdout);  // or the child inherits and prints the buffered lines again
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int code = 0;
    try {
      const Cluster cluster(testing::test_cluster("sim-2x4x4-os2"));
      testing::SpreadFifo policy(cluster, kNodesPerRack);
      const auto t0 = std::chrono::steady_clock::now();
      const ReplayResult r =
          run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, opts);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::vector<JobTimes> out(jobs.size());
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (r.jobs[i].state == FinalState::Completed) out[i] = {r.jobs[i].start_s, r.jobs[i].finish_s, 0};
      }
      for (const AllocationEvent& e : r.allocations) {
        if (!e.taken) continue;
        std::set<NodeId> nodes;
        for (GpuId g : e.gpus) nodes.insert(cluster.gpu(g).node);
        out[e.job].nodes = std::max(out[e.job].nodes, static_cast<int>(nodes.size()));
      }
      const std::size_t bytes = out.size() * sizeof(JobTimes);
      if (write(fds[1], &wall, sizeof wall) != sizeof wall ||
          write(fds[1], out.data(), bytes) != static_cast<ssize_t>(bytes))
        code = 4;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "replay child: %s\n", e.what());
      code = 3;
    }
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  RunResult result;
  result.jobs.resize(jobs.size());
  char* dst = reinterpret_cast<char*>(result.jobs.data());
  std::size_t want = result.jobs.size() * sizeof(JobTimes), got = 0;
  bool ok = read(fds[0], &result.wall_s, sizeof result.wall_s) == sizeof result.wall_s;
  while (ok && got < want) {
    const ssize_t n = read(fds[0], dst + got, want - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!ok || got != want || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("replay child failed, status " + std::to_string(status));
  return result;
}

// Returns the mean relative JCT error.
double expect_every_jct_within(const RunResult& fast, const RunResult& reference, double tolerance) {
  const std::vector<JobSpec> jobs = contended_trace();
  std::size_t multi_node = 0;
  double worst = 0;
  double sum = 0;
  std::size_t worst_job = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobTimes& f = fast.jobs[i];
    const JobTimes& r = reference.jobs[i];
    EXPECT_GE(r.finish_s, 0) << jobs[i].id << " did not complete in the reference";
    EXPECT_GE(f.finish_s, 0) << jobs[i].id << " did not complete";
    if (r.nodes > 1) ++multi_node;
    const double jct_ref = r.finish_s - jobs[i].submit_s;
    const double err = std::abs((f.finish_s - jobs[i].submit_s) / jct_ref - 1.0);
    if (err > worst) worst = err, worst_job = i;
    sum += err;
    EXPECT_LE(err, tolerance) << jobs[i].id << ": JCT " << f.finish_s - jobs[i].submit_s << " s vs "
                              << jct_ref << " s per iteration-by-iteration";
  }
  EXPECT_GE(static_cast<double>(multi_node) / jobs.size(), 0.30);
  const double mean = sum / static_cast<double>(jobs.size());
  std::printf(
      "jobs=%zu multi_node=%zu worst_jct_error=%.4f%% (job %s) mean_jct_error=%.4f%% wall_s=%.2f "
      "reference_wall_s=%.2f\n",
      jobs.size(), multi_node, 100 * worst, jobs[worst_job].id.c_str(), 100 * mean, fast.wall_s,
      reference.wall_s);
  return mean;
}

TEST(MacroIterationFidelity, ActorEngineDefaultsMatchPerIterationJctForEveryJob) {
  const RunResult reference = replay_in_child(macro_options(0, false));
  const RunResult fast = replay_in_child(testing::actor_ring_options());
  expect_every_jct_within(fast, reference, 0.01);
}

// For docs/PERFORMANCE.md only (run with --gtest_also_run_disabled_tests):
// plain macro-iterations without the per-iteration rule, whose errors the
// rule exists to remove.
TEST(MacroIterationFidelity, DISABLED_PlainMacroIterationsForTheRecord) {
  const RunResult reference = replay_in_child(macro_options(0, false));
  const RunResult plain = replay_in_child(macro_options(10, false));
  expect_every_jct_within(plain, reference, 1.0);
}

}  // namespace
}  // namespace vnsim

namespace vnsim {
namespace {

// For docs/PERFORMANCE.md only: the per-iteration rule with larger M.
TEST(MacroIterationFidelity, DISABLED_AdaptiveSweepForTheRecord) {
  const RunResult reference = replay_in_child(macro_options(0, false));
  for (int m : {30, 100, 300}) {
    std::printf("M=%d shorten_macro_when_contended: ", m);
    expect_every_jct_within(replay_in_child(macro_options(m, true)), reference, 1.0);
  }
}

}  // namespace
}  // namespace vnsim

namespace vnsim {
namespace {

ReplayOptions quiet_options(double contended_macro_s) {
  ReplayOptions opts = testing::actor_ring_options();
  opts.quiet_rings = true;
  opts.contended_macro_s = contended_macro_s;
  return opts;
}

// Each of the trace's first 40 jobs alone under `options` against every
// iteration simulated; the multi-node ones count.
void expect_alone_rings_match_per_iteration(const ReplayOptions& options) {
  const std::vector<JobSpec> all = contended_trace();
  int multi_node = 0;
  for (std::size_t i = 0; i < 40; ++i) {
    std::vector<JobSpec> one{all[i]};
    one[0].submit_s = 0;
    const RunResult reference = replay_in_child(macro_options(0, false), one);
    if (reference.jobs[0].nodes < 2) continue;
    ++multi_node;
    const RunResult fast = replay_in_child(options, one);
    EXPECT_NEAR(fast.jobs[0].finish_s / reference.jobs[0].finish_s, 1.0, 1e-6) << one[0].id;
  }
  EXPECT_GE(multi_node, 15);
}

// Alone on its links a quiet ring is timed analytically; that must be what
// the simulated ring takes, iteration by iteration.
TEST(QuietRings, AloneTheyTakeWhatPerIterationSimulationTakes) {
  expect_alone_rings_match_per_iteration(quiet_options(0));
}

// Contended, each contention change resumes a ring from an estimated phase,
// and FIFO on a spread placement amplifies every small difference (a job
// ending a little earlier frees other GPUs for the next one). The bounds are
// the measured errors with some margin (docs/PERFORMANCE.md, "Quiet rings").
TEST(QuietRings, ContendedTraceStaysCloseToPerIterationSimulation) {
  const RunResult reference = replay_in_child(macro_options(0, false));
  for (double s : {0.0, 10.0}) {
    std::printf("quiet rings, contended_macro_s=%g: ", s);
    const double mean = expect_every_jct_within(replay_in_child(quiet_options(s)), reference, 0.10);
    EXPECT_LE(mean, 0.01);
  }
}

}  // namespace
}  // namespace vnsim

namespace vnsim {
namespace {

// Fluid rings are the default engine (issue 21): these tests guard the
// defaults.
ReplayOptions fluid_options() {
  const ReplayOptions defaults;
  EXPECT_TRUE(defaults.fluid_rings);
  return defaults;
}

// Alone, a fluid ring is a quiet ring: the idle-network time, exactly.
TEST(FluidRings, AloneTheyTakeWhatPerIterationSimulationTakes) {
  expect_alone_rings_match_per_iteration(fluid_options());
}

// The fluid model replaces simulated comm phases by their average effect,
// so single jobs move more than with quiet rings; the bounds are the
// measured errors with some margin (docs/PERFORMANCE.md, "Fluid rings").
TEST(FluidRings, ContendedTraceStaysCloseToPerIterationSimulation) {
  const RunResult reference = replay_in_child(macro_options(0, false));
  std::printf("fluid rings: ");
  // Measured as the default (issue 21): worst 2.24%, mean 0.14%; with the
  // stretch forced to 1 (every ring at its idle-network speed), worst 4.56%,
  // mean 0.30%, which these bounds reject. They were 10% and 0.5% while
  // fluid rings were opt-in.
  const double mean = expect_every_jct_within(replay_in_child(fluid_options()), reference, 0.04);
  EXPECT_LE(mean, 0.0025);
}

}  // namespace
}  // namespace vnsim
