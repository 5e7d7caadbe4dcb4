// Macro-iterations against per-iteration simulation for layout and
// parameter-server jobs that share links with each other and with a ring:
// every job's JCT with the default options (M = 100, per-iteration while
// contended) within 1% of M = 0 (every iteration simulated). Placements are
// scripted, so the two runs differ only in how iterations are batched.
// SimGrid allows one engine per process: each replay runs in a forked child
// that sends the finish times back through a pipe.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "sim_test_support.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// 2 racks x 3 nodes x 8 GPUs, uplinks oversubscribed 2x.
Cluster make_cluster() {
  return Cluster(testing::test_cluster("sim-2x3x8-os2"));
}

struct Scripted {
  std::vector<JobSpec> jobs;
  std::map<JobIndex, std::vector<GpuId>> plan;
};

// A layout job whose DP rings cross the racks, two PS jobs (synchronous;
// asynchronous with stragglers) whose servers share node r0n1's NIC with a
// ring, arriving 3 s apart so the contended set changes over time.
Scripted scenario() {
  Scripted s;
  JobSpec layout;
  layout.id = "layout";
  layout.model = "gpt-1.3b";
  layout.gpus = 16;
  layout.tp = 8;
  layout.global_batch = 16;
  layout.iterations = 300;
  s.plan[0] = testing::gpu_range(0, 8);
  for (GpuId g = 24; g < 32; ++g) s.plan[0].push_back(g);
  s.jobs.push_back(layout);

  const ModelParams& model = ModelCatalog::builtin().at("imagenet");
  JobSpec sync = testing::make_job("ps-sync", 3, model, 9, 300);
  sync.ps.servers = 1;
  sync.global_batch = 8 * model.min_local_batch;
  s.plan[1] = {8};
  for (GpuId g = 32; g < 40; ++g) s.plan[1].push_back(g);
  s.jobs.push_back(sync);

  JobSpec async = sync;
  async.id = "ps-async";
  async.submit_s = 6;
  async.iterations = 2400;
  async.ps.async = true;
  async.ps.straggler_probability = 0.5;
  async.ps.straggler_min_slowdown = 1.5;
  async.ps.straggler_max_slowdown = 3;
  async.ps.straggler_seed = 7;
  s.plan[2] = {9};
  for (GpuId g = 40; g < 48; ++g) s.plan[2].push_back(g);
  s.jobs.push_back(async);

  s.jobs.push_back(testing::make_job("ring", 9, model, 14, 300));
  s.plan[3] = testing::gpu_range(10, 14);
  return s;
}

std::vector<double> finish_times_in_child(int macro_iterations, bool shorten_macro_when_contended) {
  std::fflush(stdout);  // or the child inherits and prints the buffered lines again
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const Scripted s = scenario();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int code = 0;
    try {
      testing::ScriptedPolicy policy(s.plan);
      ReplayOptions opts = testing::actor_ring_options();
      opts.macro_iterations = macro_iterations;
      opts.shorten_macro_when_contended = shorten_macro_when_contended;
      const ReplayResult r =
          run_replay(make_cluster(), GpuCatalog::builtin(), ModelCatalog::builtin(), s.jobs, policy, opts);
      std::vector<double> out;
      for (const JobRecord& rec : r.jobs)
        out.push_back(rec.state == FinalState::Completed ? rec.finish_s : -1);
      const auto bytes = static_cast<ssize_t>(out.size() * sizeof(double));
      if (write(fds[1], out.data(), static_cast<std::size_t>(bytes)) != bytes) code = 4;
    } catch (...) {
      code = 3;
    }
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  std::vector<double> out(s.jobs.size());
  const std::size_t want = out.size() * sizeof(double);
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = read(fds[0], reinterpret_cast<char*>(out.data()) + got, want - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != want || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("replay child failed, status " + std::to_string(status));
  return out;
}

void expect_every_jct_within(const std::vector<double>& fast, const std::vector<double>& reference,
                             double tolerance) {
  const Scripted s = scenario();
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    ASSERT_GT(reference[j], 0) << s.jobs[j].id << " did not complete in the reference";
    ASSERT_GT(fast[j], 0) << s.jobs[j].id << " did not complete";
    const double jct_ref = reference[j] - s.jobs[j].submit_s;
    EXPECT_NEAR((fast[j] - s.jobs[j].submit_s) / jct_ref, 1.0, tolerance)
        << s.jobs[j].id << ": JCT " << fast[j] - s.jobs[j].submit_s << " s vs " << jct_ref << " s";
    std::printf("%s: JCT error %.3f%%\n", s.jobs[j].id.c_str(),
                100 * ((fast[j] - s.jobs[j].submit_s) / jct_ref - 1));
  }
}

TEST(FlowJobFidelity, DefaultOptionsMatchPerIterationJctForEveryJob) {
  const ReplayOptions defaults;
  expect_every_jct_within(
      finish_times_in_child(defaults.macro_iterations, defaults.shorten_macro_when_contended),
      finish_times_in_child(0, false), 0.01);
}

// For docs/NETWORK.md only (run with --gtest_also_run_disabled_tests): plain
// macro-iterations (M = 10) without the per-iteration rule.
TEST(FlowJobFidelity, DISABLED_PlainMacroIterationsForTheRecord) {
  expect_every_jct_within(finish_times_in_child(10, false), finish_times_in_child(0, false), 1.0);
}

}  // namespace
}  // namespace vnsim
