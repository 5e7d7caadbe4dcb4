// Ended and preempted multi-node jobs must give their actors back to SimGrid.
// A ring's state holds its last comms, a comm holds its actors and an actor's
// code holds the ring's state: unless the engine cuts that cycle, every ring
// that ever ran keeps its actors' stacks mapped, and a long elastic replay
// (Sia or Pollux on the Philly trace) dies when the process runs out of
// memory mappings. Each leaked actor keeps its stack mapped (SimGrid's
// contexts/stack-size, 8 MiB by default; the thread's stack in the sanitizer
// build, whose actors are threads), so the count of mappings of at least
// 1 MiB after a replay of many rings tells whether they were released.
// Smaller mappings are left out: the sanitizer runtime keeps one of 64 KiB
// per ended thread on some kernels (1,600-1,960 after this replay, none of
// them a stack), which is not an actor kept alive.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim_test_support.hpp"
#include "vnsim/policies/sjf_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

constexpr unsigned long long kStackSized = 1ull << 20;

// Mappings of at least kStackSized bytes, or -1 without /proc/self/maps.
long large_mappings() {
  std::ifstream maps("/proc/self/maps");
  if (!maps) return -1;
  long large = 0;
  for (std::string line; std::getline(maps, line);) {
    // "start-end perms ...", both addresses in hex.
    const std::size_t dash = line.find('-'), space = line.find(' ');
    if (dash == std::string::npos || space == std::string::npos || space < dash) continue;
    const unsigned long long start = std::stoull(line.substr(0, dash), nullptr, 16);
    const unsigned long long end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
    if (end - start >= kStackSized) ++large;
  }
  return large;
}

TEST(ActorRelease, EndedAndPreemptedRingsDoNotKeepTheirActorStacks) {
  const long before = large_mappings();
  if (before < 0) GTEST_SKIP() << "no /proc/self/maps on this system";
  // 4 nodes of 4 GPUs: every 8-GPU job is a two-node ring of 8 actors.
  Cluster cluster(testing::test_cluster("sim-1x4x4"));
  const ModelParams& model = testing::most_communicating_model();
  // Each arrival is shorter than what runs, so SRTF preempts a ring at
  // almost every arrival; the rest end normally.
  std::vector<JobSpec> jobs;
  const int count = 240;
  for (int i = 0; i < count; ++i)
    jobs.push_back(testing::make_job("j" + std::to_string(i), 0.5 * i, model, 8, 800 - 3 * i));
  SrtfPolicy policy;
  const ReplayResult r = run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy,
                                    testing::actor_ring_options());
  int restarts = 0;
  for (const JobRecord& rec : r.jobs) {
    ASSERT_EQ(rec.state, FinalState::Completed) << rec.id << ": " << rec.reason;
    restarts += rec.restarts;
  }
  ASSERT_GT(restarts, 20) << "the scenario should stop many rings";
  // 240 rings of 8 actors (plus the restarted ones) would leave at least
  // 1,920 stacks behind; creating the engine and the platform, and the
  // sanitizer's allocator regions, take under 100 of their own.
  const long grown = large_mappings() - before;
  EXPECT_LT(grown, 500) << "mappings of at least 1 MiB grew by " << grown << " over the replay";
}

}  // namespace
}  // namespace vnsim
