// RunClock on its own: analytic ends, stale ends after a re-timing, and the
// expected end of a run that keeps its own time.
#include "run_clock.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace vnsim::sim {
namespace {

TEST(RunClock, EndsComeDueInTimeThenJobOrder) {
  RunClock clock(3);
  clock.end_at(2, 10);
  clock.end_at(0, 10);
  clock.end_at(1, 5);
  EXPECT_EQ(clock.next_s(), 5.0);
  std::vector<RunClock::End> due;
  clock.take_due(10, due);
  ASSERT_EQ(due.size(), 3u);
  EXPECT_EQ(due[0].job, 1u);
  EXPECT_EQ(due[1].job, 0u);
  EXPECT_EQ(due[2].job, 2u);
  EXPECT_FALSE(clock.next_s().has_value());
}

TEST(RunClock, AChangeOfSpeedMovesTheEndAndLeavesTheOldOneStale) {
  RunClock clock(1);
  RunTimes& run = clock.at(0);
  run.estimated_total_s = 100;
  run.progress.begin_run(1, 0);
  clock.end_at(0, 100);
  // 40 s of work at full speed, then half speed: 60 s of work left take 120 s.
  clock.change_rate(0, 0.5, 40);
  EXPECT_EQ(run.analytic_end_s, 160.0);
  EXPECT_EQ(clock.epoch(0), 1);
  EXPECT_EQ(clock.next_s(), 100.0);  // the old end is still in the heap...
  clock.drop_stale();
  EXPECT_EQ(clock.next_s(), 160.0);  // ...until dropped from the top
}

TEST(RunClock, ARunThatKeepsItsOwnTimeIsExpectedToEndAfterItsIdleRunTime) {
  RunClock clock(1);
  RunTimes& run = clock.at(0);
  run.segment_start_s = 30;
  run.estimated_total_s = 70;
  EXPECT_EQ(clock.expected_end_s(0), 100.0);  // no analytic end: actors keep its time
  clock.end_at(0, 90);
  EXPECT_EQ(clock.expected_end_s(0), 90.0);
  clock.wake_at(0, 95);  // a set-up's end wakes the controller but is no analytic end
  EXPECT_EQ(run.analytic_end_s, 90.0);
  clock.invalidate(0);
  clock.drop_stale();
  EXPECT_FALSE(clock.next_s().has_value());
}

}  // namespace
}  // namespace vnsim::sim
