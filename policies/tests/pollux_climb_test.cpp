// Pollux's greedy seed on hand-computed problems. Speedups are simple
// functions of the GPU count so every move's gain can be worked out: with
// p = -1 a job's term is -1/(s + 0.001).
#include "vnsim/policies/pollux_climb.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace vnsim {
namespace {

using Rows = std::vector<std::vector<std::pair<NodeId, int>>>;

double linear(std::size_t, int, int gpus) {
  return gpus;
}

TEST(PolluxClimb, OneJobFillsItsNodeThenSpreadsWhileThatPays) {
  // Two nodes of 4. On one node s = g; across nodes s = 0.8 g. From 4 GPUs
  // (s 4) spreading onto the other node gives s 6.4: -1/6.401 > -1/4.001.
  ClimbProblem p;
  p.capacity = {4, 4};
  p.jobs = {ClimbJob{{}, 1, 8}};
  p.speedup = [](std::size_t, int nodes, int gpus) { return nodes == 1 ? gpus : 0.8 * gpus; };
  EXPECT_EQ(climb_allocation(p), (Rows{{{0, 4}, {1, 4}}}));
  // Spreading that loses (s = 0.4 g across nodes: 3.2 < 4) is not taken.
  p.speedup = [](std::size_t, int nodes, int gpus) { return nodes == 1 ? gpus : 0.4 * gpus; };
  EXPECT_EQ(climb_allocation(p), (Rows{{{0, 4}}}));
  // Nor beyond the job's max_gpus.
  p.speedup = linear;
  p.jobs[0].max_gpus = 3;
  EXPECT_EQ(climb_allocation(p), (Rows{{{0, 3}}}));
}

TEST(PolluxClimb, RunningJobGrowsOnlyWhenItOutweighsTheRestartFactor) {
  // A job runs on 2 of node 1's 4 GPUs; s = g on one node, 0.5 g across
  // nodes. Restart factor 0.5: 3 GPUs give 1.5, 4 give 2.0, neither above
  // its current 2, so it stays.
  ClimbProblem p;
  p.capacity = {4, 4};
  p.speedup = [](std::size_t, int nodes, int gpus) { return nodes == 1 ? gpus : 0.5 * gpus; };
  p.jobs = {ClimbJob{{{1, 2}}, 0.5, 8}};
  EXPECT_EQ(climb_allocation(p), (Rows{{{1, 2}}}));
  // Factor 0.9: one more GPU gains 1/2.001 - 1/2.701 = 0.130, filling the
  // node (1/2.001 - 1/3.601) / 2 = 0.111 per GPU, so one first; then the
  // 4th (1/2.701 - 1/3.601 = 0.093). Spreading onto node 0 would give
  // 8 x 0.5 x 0.9 = 3.6, no more than it has: 4 on node 1.
  p.jobs[0].restart_factor = 0.9;
  EXPECT_EQ(climb_allocation(p), (Rows{{{1, 4}}}));
}

TEST(PolluxClimb, FirstGpusGoToEveryJobBeforeAnyJobGrows) {
  // Two queued jobs, two nodes of 4, s = g on any number of nodes. A first
  // GPU gains ~999 (from the 1e-3 floor), so both start before either
  // grows: a on node 0 (roomiest, lowest id), then b on node 1, the
  // roomiest left. Equal gains go to the earlier job and growing in place
  // is tried before the other moves, so each fills its own node.
  ClimbProblem p;
  p.capacity = {4, 4};
  p.speedup = linear;
  p.jobs = {ClimbJob{{}, 1, 8}, ClimbJob{{}, 1, 8}};
  EXPECT_EQ(climb_allocation(p), (Rows{{{0, 4}}, {{1, 4}}}));
}

TEST(PolluxClimb, NoNodeHoldsTwoJobsThatSpanSeveralNodes) {
  // Three nodes of 2. a runs on {0: 2, 1: 1}, so it spans nodes 0 and 1; b
  // is queued; s = g. a takes its GPUs back first (gain 1000 - 1/3.001 >
  // b's 1000 - 1/1.001), b starts on node 2 (roomiest) and grows to 2 there
  // (gain 0.499). b would next spread onto node 1's free GPU (gain
  // 1/2.001 - 1/3.001 = 0.167), but a spans node 1, so a grows there
  // instead (1/3.001 - 1/4.001 = 0.083).
  ClimbProblem p;
  p.capacity = {2, 2, 2};
  p.speedup = linear;
  p.jobs = {ClimbJob{{{0, 2}, {1, 1}}, 0.99, 8}, ClimbJob{{}, 1, 8}};
  EXPECT_EQ(climb_allocation(p), (Rows{{{0, 2}, {1, 2}}, {{2, 2}}}));
}

TEST(PolluxClimb, RunningJobKeepsItsGpusRatherThanRestartOnOne) {
  // Per GPU, an 8-GPU job's current allocation (s 8: (1000 - 1/8.001) / 8 =
  // 125) would lose to one GPU on the roomiest node (1000 - 1/0.901 = 999),
  // where it would restart and grow to 8 x 0.9. Its first GPUs are compared
  // as a whole, so it keeps its two half nodes.
  ClimbProblem p;
  p.capacity = {8, 4, 4};
  p.speedup = linear;
  p.jobs = {ClimbJob{{{1, 4}, {2, 4}}, 0.9, 8}};
  EXPECT_EQ(climb_allocation(p), (Rows{{{1, 4}, {2, 4}}}));
}

TEST(PolluxClimb, StopsWhenNoMoveRaisesTheObjective) {
  // s is flat beyond 2 GPUs: the job takes 2 and leaves the rest free.
  ClimbProblem p;
  p.capacity = {4};
  p.speedup = [](std::size_t, int, int gpus) { return gpus >= 2 ? 2.0 : 1.0; };
  p.jobs = {ClimbJob{{}, 1, 4}};
  EXPECT_EQ(climb_allocation(p), (Rows{{{0, 2}}}));
  // A job that cannot run anywhere (speedup 0) gets nothing.
  p.speedup = [](std::size_t, int, int) { return 0.0; };
  EXPECT_EQ(climb_allocation(p), (Rows{{}}));
}

}  // namespace
}  // namespace vnsim
