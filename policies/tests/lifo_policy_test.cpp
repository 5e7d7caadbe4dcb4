// The example policy `lifo` (policies/src/lifo_policy.cpp) on one node of 8
// V100s, so consolidated placement takes the lowest-numbered free GPUs and
// every expected start below follows from the rule by hand: walk the queue
// from the newest job to the oldest, start each job that fits, skip one that
// does not.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {
namespace {

struct Node8 {
  Node8() : cluster(testing::test_cluster("v100-1x1x8")), topology(cluster), view(cluster, topology) {}

  const JobSpec* job(int gpus) {
    auto spec = std::make_unique<JobSpec>();
    spec->id = "j" + std::to_string(specs.size());
    spec->gpus = gpus;
    specs.push_back(std::move(spec));
    return specs.back().get();
  }

  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::vector<std::unique_ptr<JobSpec>> specs;
};

// (job, GPUs) of each decision, which must all be starts.
std::vector<std::pair<JobIndex, std::vector<GpuId>>> starts(const std::vector<Decision>& decisions) {
  std::vector<std::pair<JobIndex, std::vector<GpuId>>> out;
  for (const Decision& d : decisions) {
    EXPECT_TRUE(std::holds_alternative<StartJob>(d));
    if (const auto* s = std::get_if<StartJob>(&d)) out.emplace_back(s->job, s->placement.gpus);
  }
  return out;
}

TEST(LifoPolicy, NewestJobStartsFirstAndOlderOnesFillWhatIsLeft) {
  // Queue in submission order: j0 4 GPUs, j1 4, j2 2, j3 6. Newest first:
  // j3 takes GPUs 0-5, j2 the last two (6, 7); j1 and j0 no longer fit.
  // (fifo-backfill would start j0 on 0-3 and j1 on 4-7.)
  Node8 n;
  SchedulerInput in;
  in.view = &n.view;
  for (int gpus : {4, 4, 2, 6}) in.queued.push_back({in.queued.size(), n.job(gpus)});
  auto lifo = make_policy("lifo");
  EXPECT_EQ(lifo->name(), "lifo");
  EXPECT_EQ(starts(lifo->decide(in)), (std::vector<std::pair<JobIndex, std::vector<GpuId>>>{
                                          {3, {0, 1, 2, 3, 4, 5}},
                                          {2, {6, 7}},
                                      }));
}

TEST(LifoPolicy, SkipsAJobThatDoesNotFitAndStartsAnOlderOne) {
  // Job 3 runs on GPUs 0-3. Queue: j0 2 GPUs, j1 4, j2 2. Newest first: j2
  // takes 4-5; j1 needs 4 of the 2 left and is skipped; j0 takes 6-7.
  Node8 n;
  SchedulerInput in;
  in.view = &n.view;
  for (int gpus : {2, 4, 2}) in.queued.push_back({in.queued.size(), n.job(gpus)});
  const JobSpec* running = n.job(4);
  n.view.allocate({0, 1, 2, 3}, 3);
  in.running.push_back({3, running, spread_virtual_nodes({0, 1, 2, 3}, 4)});
  auto lifo = make_policy("lifo");
  EXPECT_EQ(starts(lifo->decide(in)), (std::vector<std::pair<JobIndex, std::vector<GpuId>>>{
                                          {2, {4, 5}},
                                          {0, {6, 7}},
                                      }));
}

TEST(LifoPolicy, EmptyQueueDecidesNothingAndParametersAreTheTables) {
  Node8 n;
  SchedulerInput in;
  in.view = &n.view;
  EXPECT_TRUE(make_policy("lifo")->decide(in).empty());
  EXPECT_EQ(make_policy("lifo", {{"placement", "random"}, {"seed", "3"}})->name(), "lifo");
  EXPECT_THROW(make_policy("lifo", {{"placement", "nowhere"}}), InputError);
  EXPECT_THROW(make_policy("lifo", {{"slice_s", "60"}}), InputError);
}

}  // namespace
}  // namespace vnsim
