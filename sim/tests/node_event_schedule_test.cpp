// NodeEventSchedule on its own, without an engine: which node leaves or
// returns, when, and in which order (docs/SPOT.md).
#include "node_event_schedule.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "sim_test_support.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::sim {
namespace {

const Cluster& cluster() {
  static const Cluster c(testing::test_cluster("sim-1x2x4"));  // node 0: GPUs 0-3, node 1: GPUs 4-7
  return c;
}

TEST(NodeEventSchedule, AnEventOnANodeAlreadyDownOnlyMovesItsReturnLater) {
  ReplayOptions o;
  o.node_events = {{100, 1, 600}, {300, 1, 100}, {500, 1, 500}};
  NodeEventSchedule s(cluster(), o);
  EXPECT_EQ(s.next_s(), 100.0);
  EXPECT_FALSE(s.next_due(99, false));
  const auto left = s.next_due(100, false);
  ASSERT_TRUE(left);
  EXPECT_EQ(left->kind, NodeChange::Kind::Left);
  EXPECT_EQ(left->node, 1);
  EXPECT_EQ(left->time_s, 100.0);
  EXPECT_EQ(left->gpus, (std::vector<GpuId>{4, 5, 6, 7}));
  EXPECT_TRUE(s.any_down());
  // Down until 700; the event at 300 ends at 400, before that: no change of
  // the return. The one at 500 ends at 1000: the return moves there.
  EXPECT_EQ(s.next_due(300, false)->kind, NodeChange::Kind::WhileDown);
  EXPECT_EQ(s.next_due(500, false)->kind, NodeChange::Kind::WhileDown);
  EXPECT_FALSE(s.next_due(999, false));  // the return at 700 is stale
  EXPECT_TRUE(s.any_down());
  const auto back = s.next_due(1000, false);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, NodeChange::Kind::Returned);
  EXPECT_EQ(back->time_s, 1000.0);
  EXPECT_FALSE(s.any_down());
  EXPECT_FALSE(s.next_s());
}

TEST(NodeEventSchedule, AtOneInstantReturnsComeFirstThenNodesInIndexOrder) {
  ReplayOptions o;
  o.node_events = {{10, 1, 5}, {10, 0, 5}, {0, 0, 10}};
  NodeEventSchedule s(cluster(), o);
  EXPECT_EQ(s.next_due(0, false)->kind, NodeChange::Kind::Left);
  const auto a = s.next_due(10, false);
  const auto b = s.next_due(10, false);
  const auto c = s.next_due(10, false);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->kind, NodeChange::Kind::Returned);
  EXPECT_EQ(a->node, 0);
  EXPECT_EQ(b->kind, NodeChange::Kind::Left);
  EXPECT_EQ(b->node, 0);
  EXPECT_EQ(c->kind, NodeChange::Kind::Left);
  EXPECT_EQ(c->node, 1);
  EXPECT_FALSE(s.next_due(10, false));
  EXPECT_EQ(s.next_s(), 15.0);
}

TEST(NodeEventSchedule, RandomEventsStopOnceEveryJobIsDone) {
  ReplayOptions o;
  o.failure_rate_per_node_hour = 1;
  NodeEventSchedule s(cluster(), o);
  ASSERT_TRUE(s.next_s());
  EXPECT_FALSE(s.next_due(std::numeric_limits<double>::infinity(), true));
  EXPECT_FALSE(s.next_s());
  EXPECT_FALSE(s.any_down());
}

std::string error_of(const ReplayOptions& o) {
  try {
    NodeEventSchedule s(cluster(), o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(NodeEventSchedule, BadEventsAndRatesAreInputErrors) {
  ReplayOptions o;
  o.node_events = {{5, 2, 1}};
  EXPECT_EQ(error_of(o), "node event at t=5.000000: node index 2 is not in the cluster");
  o.node_events = {{5, 1, 0}};
  EXPECT_EQ(error_of(o), "node event on node 'r0n1': time must be >= 0 and down time > 0");
  o.node_events.clear();
  o.revocation_rate_per_node_hour = 1;
  EXPECT_EQ(error_of(o), "a revocation rate was given but the cluster has no spot node (\"spot\": true)");
}

}  // namespace
}  // namespace vnsim::sim
