// Gandiva packing: a waiting job is packed next to a running one when the
// cluster is full; at the next slice boundary a pair whose combined
// throughput (interference table) is below 1 is unpacked and never packed
// again, a good pair stays; jobs asking for a GPU share get the fullest GPU
// that holds it.
#include <gtest/gtest.h>

#include <variant>

#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/interference.hpp"
#include "vnsim/policies/gandiva_policy.hpp"

namespace vnsim {
namespace {

JobSpec job(const std::string& id, const std::string& model, int milli = 0) {
  JobSpec j;
  j.id = id;
  j.model = model;
  j.gpus = 1;
  j.gpu_milli = milli;
  return j;
}

GandivaPolicy packing_policy() {
  GandivaParams p;
  p.packing = true;
  return GandivaPolicy(p);
}

struct World {
  explicit World(int gpus)
      : cluster(testing::test_cluster("v100-1x1x" + std::to_string(gpus))),
        topology(cluster),
        view(cluster, topology) {}
  SchedulerInput input(double now) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    return in;
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
};

RunningJob running(JobIndex i, const JobSpec& spec, GpuId g, double start) {
  return RunningJob{i, &spec, Placement{{g}, {1}}, start, 0, -1};
}

// Two ResNet-50 (imagenet) jobs on one V100: each keeps 0.3782 of its speed,
// 0.7564 together (core/data/interference.json), a bad pair.
TEST(GandivaPacking, PacksWhenFullThenUnpacksABadPairAtTheNextBoundary) {
  const InterferenceTable& table = InterferenceTable::builtin();
  ASSERT_DOUBLE_EQ(table.fraction("V100", "ResNet-50", "ResNet-50"), 0.3782);
  World w(1);
  const JobSpec a = job("a", "imagenet"), b = job("b", "imagenet");
  GandivaPolicy policy = packing_policy();

  // a runs alone since 0; b arrives at 10 and the GPU is full: pack.
  w.view.allocate({0}, 0);
  SchedulerInput in = w.input(10);
  in.running = {running(0, a, 0, 0)};
  in.queued = {QueuedJob{1, &b, 0, -1}};
  const auto pack = policy.decide(in);
  ASSERT_EQ(pack.size(), 3u);
  EXPECT_EQ(std::get<PreemptJob>(pack[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(pack[1]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(pack[1]).gpu_milli, 500);
  EXPECT_EQ(std::get<StartJob>(pack[1]).placement.gpus, std::vector<GpuId>{0});
  EXPECT_EQ(std::get<StartJob>(pack[2]).job, 1u);
  EXPECT_EQ(std::get<StartJob>(pack[2]).gpu_milli, 500);
  EXPECT_EQ(std::get<StartJob>(pack[2]).placement.gpus, std::vector<GpuId>{0});
  ASSERT_TRUE(policy.next_timer_s(10).has_value());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(10), 60);  // the pair is judged at the next boundary
  w.view.release({0}, 0);
  w.view.allocate({0}, 0, 500);
  w.view.allocate({0}, 1, 500);

  // Nothing changes before the boundary.
  in = w.input(30);
  in.running = {running(0, a, 0, 10), running(1, b, 0, 10)};
  EXPECT_TRUE(policy.decide(in).empty());

  // At 60: 0.7564 < 1, so b (the packed one) is suspended; a runs on alone.
  in = w.input(60);
  in.running = {running(0, a, 0, 10), running(1, b, 0, 10)};
  const auto unpack = policy.decide(in);
  ASSERT_EQ(unpack.size(), 1u);
  EXPECT_EQ(std::get<PreemptJob>(unpack[0]).job, 1u);
  w.view.release({0}, 1);

  // Still the boundary: plain time-slicing hands the GPU to b, whole.
  in = w.input(60);
  in.running = {running(0, a, 0, 10)};
  in.queued = {QueuedJob{1, &b, 0, -1}};
  const auto rotate = policy.decide(in);
  ASSERT_EQ(rotate.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(rotate[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(rotate[1]).job, 1u);
  EXPECT_EQ(std::get<StartJob>(rotate[1]).gpu_milli, 0);
  w.view.release({0}, 0);
  w.view.allocate({0}, 1);

  // The pair is known bad: a waits instead of being packed again.
  in = w.input(60);
  in.running = {running(1, b, 0, 60)};
  in.queued = {QueuedJob{0, &a, 0, -1}};
  EXPECT_TRUE(policy.decide(in).empty());
}

// Two ResNet-18 (cifar10) jobs keep 0.8966 each, 1.7932 together: they stay.
TEST(GandivaPacking, AGoodPairStaysPacked) {
  World w(1);
  const JobSpec a = job("a", "cifar10"), b = job("b", "cifar10");
  GandivaPolicy policy = packing_policy();
  w.view.allocate({0}, 0);
  SchedulerInput in = w.input(0);
  in.running = {running(0, a, 0, 0)};
  in.queued = {QueuedJob{1, &b, 0, -1}};
  ASSERT_EQ(policy.decide(in).size(), 3u);
  w.view.release({0}, 0);
  w.view.allocate({0}, 0, 500);
  w.view.allocate({0}, 1, 500);
  in = w.input(60);
  in.running = {running(0, a, 0, 0), running(1, b, 0, 0)};
  EXPECT_TRUE(policy.decide(in).empty());
  EXPECT_FALSE(policy.next_timer_s(60).has_value());  // judged once, nothing left to rotate
}

TEST(GandivaPacking, OffKeepsGpusExclusive) {
  World w(1);
  const JobSpec a = job("a", "imagenet"), b = job("b", "imagenet", 300);
  GandivaPolicy policy;  // packing off
  w.view.allocate({0}, 0);
  SchedulerInput in = w.input(10);
  in.running = {running(0, a, 0, 0)};
  in.queued = {QueuedJob{1, &b, 0, -1}};
  EXPECT_TRUE(policy.decide(in).empty());
}

// A share takes a free GPU while there is one: y (540) gets the free GPU 0,
// not the 540 milli left next to x on GPU 1. With no free GPU left, z (400)
// goes to the fullest GPU that holds it: GPU 0 (460 left), not GPU 1 (540).
TEST(GandivaPacking, SharesTakeFreeGpusFirstThenTheFullestThatHoldsThem) {
  World w(2);
  const JobSpec x = job("x", "cifar10", 460), y = job("y", "cifar10", 540), z = job("z", "cifar10", 400);
  GandivaPolicy policy = packing_policy();
  w.view.allocate({1}, 0, 460);
  SchedulerInput in = w.input(0);
  in.running = {running(0, x, 1, 0)};
  in.queued = {QueuedJob{1, &y, 0, -1}};
  const auto out = policy.decide(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 1u);
  EXPECT_EQ(std::get<StartJob>(out[0]).placement.gpus, std::vector<GpuId>{0});
  EXPECT_EQ(std::get<StartJob>(out[0]).gpu_milli, 540);
  w.view.allocate({0}, 1, 540);

  in = w.input(0);
  in.running = {running(0, x, 1, 0), running(1, y, 0, 0)};
  in.queued = {QueuedJob{2, &z, 0, -1}};
  const auto next = policy.decide(in);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(next[0]).job, 2u);
  EXPECT_EQ(std::get<StartJob>(next[0]).placement.gpus, std::vector<GpuId>{0});
  EXPECT_EQ(std::get<StartJob>(next[0]).gpu_milli, 400);
}

}  // namespace
}  // namespace vnsim
