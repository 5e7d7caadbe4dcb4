// FIFO and FIFO-backfill on a 2-rack x 2-node x 4-GPU cluster
// (tests/clusters/v100-2x2x4*.json). GPU ids are
// numbered rack, node, GPU: node n holds GPUs 4n..4n+3; nodes 0-1 are rack 0,
// nodes 2-3 rack 1. Expected placements are worked out by hand from the
// consolidation rule (one node, else fewest nodes in one rack, lowest index).
#include "vnsim/policies/fifo_policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test_clusters.hpp"

namespace vnsim {
namespace {

struct Fixture {
  explicit Fixture(const std::string& cluster_name = "v100-2x2x4")
      : cluster(testing::test_cluster(cluster_name)), topology(cluster), view(cluster, topology) {}

  JobSpec& add_job(int gpus, int virtual_nodes = 0, std::optional<std::string> type = std::nullopt) {
    auto spec = std::make_unique<JobSpec>();
    spec->id = "j" + std::to_string(specs.size());
    spec->gpus = gpus;
    spec->virtual_nodes = virtual_nodes;
    spec->gpu_type = std::move(type);
    specs.push_back(std::move(spec));
    return *specs.back();
  }

  // All jobs added so far, queued in the order they were added.
  SchedulerInput input() const {
    SchedulerInput in;
    in.view = &view;
    for (std::size_t i = 0; i < specs.size(); ++i) in.queued.push_back({i, specs[i].get()});
    return in;
  }

  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::vector<std::unique_ptr<JobSpec>> specs;
};

std::vector<GpuId> range(GpuId first, GpuId last) {
  std::vector<GpuId> out;
  for (GpuId g = first; g <= last; ++g) out.push_back(g);
  return out;
}

const StartJob& start_at(const std::vector<Decision>& d, std::size_t i) {
  EXPECT_LT(i, d.size());
  EXPECT_TRUE(std::holds_alternative<StartJob>(d.at(i)));
  return std::get<StartJob>(d.at(i));
}

TEST(FifoPolicy, EmptyQueueDecidesNothing) {
  Fixture f;
  FifoPolicy fifo(false);
  EXPECT_TRUE(fifo.decide(f.input()).empty());
}

TEST(FifoPolicy, HeadStartsOnFirstNodeWithRoom) {
  Fixture f;
  f.view.allocate(range(0, 3), 99);  // node 0 full
  f.view.allocate({4, 5}, 98);
  f.add_job(1);
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(start_at(d, 0).job, 0u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, (std::vector<GpuId>{6}));
  EXPECT_EQ(start_at(d, 0).placement.vn_per_gpu, (std::vector<int>{1}));
}

TEST(FifoPolicy, FourGpuJobIsConsolidatedOnOneNode) {
  Fixture f;
  f.view.allocate({0}, 99);  // node 0 has 3 free: a 4-GPU job must skip it
  f.add_job(4);
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, range(4, 7));
}

TEST(FifoPolicy, SixGpuJobSpansTwoNodesOfOneRack) {
  Fixture f;
  f.view.allocate({0, 1, 4}, 99);  // rack 0 has 5 free GPUs, rack 1 has 8
  f.add_job(6);
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  ASSERT_EQ(d.size(), 1u);
  const auto& gpus = start_at(d, 0).placement.gpus;
  ASSERT_EQ(gpus.size(), 6u);
  std::set<NodeId> nodes;
  for (GpuId g : gpus) {
    EXPECT_EQ(f.cluster.gpu(g).rack, 1) << "GPU " << g;
    nodes.insert(f.cluster.gpu(g).node);
  }
  EXPECT_EQ(nodes.size(), 2u);
  EXPECT_TRUE(std::is_sorted(gpus.begin(), gpus.end()));
}

TEST(FifoPolicy, HeadThatDoesNotFitBlocksEveryoneBehindIt) {
  Fixture f;
  f.view.allocate(range(0, 11), 99);  // only node 3 (GPUs 12-15) free
  f.add_job(8);
  f.add_job(1);
  FifoPolicy fifo(false);
  EXPECT_TRUE(fifo.decide(f.input()).empty());
}

TEST(FifoPolicy, HeadNeedingOneMoreGpuThanFreeWaits) {
  Fixture f;
  f.add_job(16);
  f.add_job(1);
  f.view.allocate({3}, 99);  // 15 free: one short of the head
  FifoPolicy fifo(false);
  EXPECT_TRUE(fifo.decide(f.input()).empty());
}

TEST(FifoPolicy, RespectsGpuTypeConstraint) {
  Fixture f("v100-2x2x4-k80-last");
  f.add_job(2, 0, "K80");
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, (std::vector<GpuId>{12, 13}));
}

TEST(FifoPolicy, UsesOnlyTheAllowedTypesTheEngineGives) {
  // The engine narrows a job to the types whose memory holds it: here the
  // job may not use the K80 node that first-fit would otherwise pick.
  Fixture f("v100-2x2x4-k80-first");
  f.add_job(2);
  FifoPolicy fifo(false);
  SchedulerInput in = f.input();
  in.queued[0].allowed_types = f.cluster.type_mask("V100");
  auto d = fifo.decide(in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, (std::vector<GpuId>{4, 5}));
}

TEST(FifoPolicy, TypedHeadBlocksWhenTooFewGpusOfItsType) {
  Fixture f("v100-2x2x4-k80-last");
  f.view.allocate({12}, 99);
  f.add_job(4, 0, "K80");  // 3 K80 free, 11 V100 free
  f.add_job(1);
  FifoPolicy fifo(false);
  EXPECT_TRUE(fifo.decide(f.input()).empty());
}

TEST(FifoPolicy, NeverHandsTheSameGpuOutTwiceInOneCall) {
  Fixture f;
  for (int i = 0; i < 3; ++i) f.add_job(3);
  f.add_job(1);
  f.add_job(4);
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  // 3 GPUs each go to nodes 0, 1, 2 (a node with 1 GPU left cannot take 3);
  // the 1-GPU job fills node 0; the 4-GPU job takes node 3.
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, range(0, 2));
  EXPECT_EQ(start_at(d, 1).placement.gpus, range(4, 6));
  EXPECT_EQ(start_at(d, 2).placement.gpus, range(8, 10));
  EXPECT_EQ(start_at(d, 3).placement.gpus, (std::vector<GpuId>{3}));
  EXPECT_EQ(start_at(d, 4).placement.gpus, range(12, 15));
  std::set<GpuId> seen;
  for (std::size_t i = 0; i < d.size(); ++i)
    for (GpuId g : start_at(d, i).placement.gpus) EXPECT_TRUE(seen.insert(g).second) << "GPU " << g;
}

TEST(FifoPolicy, StopsWhenTheCallHasUsedEveryFreeGpu) {
  Fixture f;
  for (int i = 0; i < 5; ++i) f.add_job(4);
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  ASSERT_EQ(d.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(start_at(d, i).job, i);
    EXPECT_EQ(start_at(d, i).placement.gpus, range(static_cast<GpuId>(4 * i), static_cast<GpuId>(4 * i + 3)));
  }
}

TEST(FifoPolicy, DecisionsApplyCleanlyToTheViewAndNextCallSeesThem) {
  Fixture f;
  f.add_job(3);
  f.add_job(3);
  FifoPolicy fifo(false);
  auto first = fifo.decide(f.input());
  ASSERT_EQ(first.size(), 2u);
  for (const auto& d : first)
    f.view.allocate(std::get<StartJob>(d).placement.gpus, std::get<StartJob>(d).job);
  // A later call starts from the updated view, with nothing left over from
  // the previous call's local bookkeeping.
  SchedulerInput in;
  in.view = &f.view;
  JobSpec one;
  one.gpus = 1;
  in.queued.push_back({7, &one});
  auto second = fifo.decide(in);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(start_at(second, 0).placement.gpus, (std::vector<GpuId>{3}));
}

TEST(FifoPolicy, SpreadsVirtualNodesOverThePlacement) {
  Fixture f;
  f.add_job(2, 5);
  FifoPolicy fifo(false);
  auto d = fifo.decide(f.input());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, (std::vector<GpuId>{0, 1}));
  EXPECT_EQ(start_at(d, 0).placement.vn_per_gpu, (std::vector<int>{3, 2}));
}

TEST(FifoBackfill, LaterJobsThatFitStartPastABlockedHead) {
  Fixture f;
  f.view.allocate(range(0, 9), 99);  // free: 10, 11 (node 2) and 12-15 (node 3)
  f.add_job(8);
  f.add_job(4);
  f.add_job(8);
  f.add_job(2);
  f.add_job(1);
  FifoPolicy backfill(true);
  EXPECT_EQ(backfill.name(), "fifo-backfill");
  auto d = backfill.decide(f.input());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(start_at(d, 0).job, 1u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, range(12, 15));
  EXPECT_EQ(start_at(d, 1).job, 3u);
  EXPECT_EQ(start_at(d, 1).placement.gpus, (std::vector<GpuId>{10, 11}));
}

TEST(FifoBackfill, SkippedTypedJobDoesNotBlockUntypedOnes) {
  Fixture f("v100-2x2x4-k80-last");
  f.view.allocate(range(12, 15), 99);  // no K80 free
  f.add_job(1, 0, "K80");
  f.add_job(2, 0, "K80");
  f.add_job(1);
  FifoPolicy backfill(true);
  auto d = backfill.decide(f.input());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(start_at(d, 0).job, 2u);
  EXPECT_EQ(start_at(d, 0).placement.gpus, (std::vector<GpuId>{0}));
}

}  // namespace
}  // namespace vnsim
