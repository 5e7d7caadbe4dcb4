// The node-event file format of docs/SPOT.md: parsing and its errors.
#include "vnsim/sim/node_events.hpp"

#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

const Cluster& cluster() {
  static const Cluster c(testing::test_cluster("sim-1x2x4"));  // nodes r0n0, r0n1
  return c;
}

std::string error_of(const std::string& text) {
  try {
    parse_node_events(text, "ev.csv", cluster());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(NodeEventsFile, RowsNameNodesAsTheClusterSpecDoes) {
  const auto events = parse_node_events("# spot trace\ntime_s,node,down_s\n100,r0n1,600\n\n2.5, r0n0 ,1\n",
                                        "ev.csv", cluster());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].time_s, 100.0);
  EXPECT_EQ(events[0].node, 1);
  EXPECT_EQ(events[0].down_s, 600.0);
  EXPECT_EQ(events[1].time_s, 2.5);
  EXPECT_EQ(events[1].node, 0);
}

TEST(NodeEventsFile, BadRowsNameTheLineAndTheReason) {
  EXPECT_EQ(error_of("time,node,down\n"),
            "ev.csv:1: expected the header 'time_s,node,down_s', got 'time,node,down'");
  EXPECT_EQ(error_of("time_s,node,down_s\n1,r9n9,5\n"),
            "ev.csv:2: node 'r9n9' is not in cluster 'sim-1x2x4'");
  EXPECT_EQ(error_of("time_s,node,down_s\n1,r0n0,0\n"), "ev.csv:2: down_s must be > 0, got 0");
  EXPECT_EQ(error_of("time_s,node,down_s\n-1,r0n0,5\n"), "ev.csv:2: time_s must be >= 0, got -1");
  EXPECT_EQ(error_of("time_s,node,down_s\nx,r0n0,5\n"), "ev.csv:2: time_s: 'x' is not a finite number");
  EXPECT_EQ(error_of("time_s,node,down_s\n1,r0n0\n"),
            "ev.csv:2: expected 3 fields (time_s,node,down_s), got 2");
  EXPECT_EQ(error_of(""), "ev.csv: empty node-event file (expected the header time_s,node,down_s)");
}

TEST(NodeEventsFile, MissingFileIsAnInputError) {
  EXPECT_THROW(read_node_events("/nonexistent/ev.csv", cluster()), InputError);
}

}  // namespace
}  // namespace vnsim
