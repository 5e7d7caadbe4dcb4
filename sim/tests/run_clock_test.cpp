// RunClock on its own: analytic ends, stale ends after a re-timing, the
// expected end of a run that keeps its own time, and each event the
// lifecycle and the ring engines tell it, on hand-computed times.
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

TEST(RunClock, AnEstimateIsTheIterationsLeftTimesTheIterationTime) {
  RunClock clock(1);
  clock.estimate(0, 0.5, 10);
  EXPECT_EQ(clock.at(0).iteration_s, 0.5);
  EXPECT_EQ(clock.at(0).estimated_total_s, 5.0);
}

TEST(RunClock, ARunAloneOnItsLinksEndsAfterItsRunTimeAtItsSpeed) {
  RunClock clock(1);
  clock.estimate(0, 2, 50);  // 100 s alone
  clock.end_at(0, 5);        // an earlier run's end, come due
  std::vector<RunClock::End> due;
  clock.take_due(5, due);
  clock.begin_run(0, 0.5, 10);
  EXPECT_EQ(clock.at(0).analytic_end_s, -1.0);  // none until set
  EXPECT_EQ(clock.at(0).segment_start_s, 10.0);
  clock.end_after_run_time(0, 10);
  EXPECT_EQ(clock.at(0).analytic_end_s, 210.0);  // 10 + 100 / 0.5
  EXPECT_EQ(clock.next_s(), 210.0);
}

TEST(RunClock, AChangeOfSpeedMovesTheEndAndLeavesTheOldOneStale) {
  RunClock clock(1);
  clock.estimate(0, 1, 100);
  clock.begin_run(0, 1, 0);
  clock.end_after_run_time(0, 0);
  EXPECT_EQ(clock.next_s(), 100.0);
  // 40 s of work at full speed, then half speed: 60 s of work left take 120 s.
  clock.change_rate(0, 0.5, 40);
  EXPECT_EQ(clock.at(0).analytic_end_s, 160.0);
  EXPECT_EQ(clock.epoch(0), 1);
  EXPECT_EQ(clock.next_s(), 100.0);  // the old end is still in the heap...
  clock.drop_stale();
  EXPECT_EQ(clock.next_s(), 160.0);  // ...until dropped from the top
}

TEST(RunClock, ARunThatKeepsItsOwnTimeIsExpectedToEndAfterItsIdleRunTime) {
  RunClock clock(1);
  clock.estimate(0, 10, 7);
  clock.begin_run(0, 1, 30);
  EXPECT_EQ(clock.expected_end_s(0), 100.0);  // no analytic end: actors keep its time
  clock.end_at(0, 90);
  EXPECT_EQ(clock.expected_end_s(0), 90.0);
  clock.wake_at(0, 95);  // a set-up's end wakes the controller but is no analytic end
  EXPECT_EQ(clock.at(0).analytic_end_s, 90.0);
  clock.invalidate(0);
  clock.drop_stale();
  EXPECT_FALSE(clock.next_s().has_value());
}

TEST(RunClock, ASetUpWakesTheControllerAndLeavesNoAnalyticEnd) {
  RunClock clock(1);
  clock.estimate(0, 1, 20);
  clock.begin_run(0, 1, 0);
  clock.end_after_run_time(0, 0);
  clock.stop(0);  // a resize: the run's end turns stale
  EXPECT_EQ(clock.epoch(0), 1);
  EXPECT_EQ(clock.at(0).analytic_end_s, -1.0);
  clock.set_up_until(0, 35);
  EXPECT_EQ(clock.at(0).analytic_end_s, -1.0);
  clock.drop_stale();
  EXPECT_EQ(clock.next_s(), 35.0);
  std::vector<RunClock::End> due;
  clock.take_due(35, due);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].epoch, 1);  // the set-up's wake is current
  clock.end_at(0, 50);
  clock.set_up_until_reported(0);  // a state broadcast: its actors report the end
  EXPECT_EQ(clock.at(0).analytic_end_s, -1.0);
}

TEST(RunClock, ARingSegmentTimedAnalyticallyBeginsItsProgressAnew) {
  RunClock clock(1);
  clock.estimate(0, 2.5, 8);
  clock.begin_run(0, 1, 0);
  clock.begin_analytic_segment(0, 4, 0.5, 10);  // 4 x 2.5 s alone, at half speed
  const RunTimes& run = clock.at(0);
  EXPECT_EQ(run.segment_start_s, 10.0);
  EXPECT_EQ(run.estimated_total_s, 10.0);
  EXPECT_EQ(run.progress.rate(), 0.5);
  EXPECT_EQ(run.progress.progress_s(14), 2.0);
  EXPECT_EQ(run.analytic_end_s, 30.0);         // 10 + 10 / 0.5
  clock.begin_analytic_segment(0, -1, 1, 40);  // nothing left: ends at once
  EXPECT_EQ(run.estimated_total_s, 0.0);
  EXPECT_EQ(run.analytic_end_s, 40.0);
}

TEST(RunClock, ARingSegmentOfActorsKeepsItsOwnTime) {
  RunClock clock(1);
  clock.estimate(0, 2.5, 8);
  clock.begin_run(0, 1, 0);
  clock.end_after_run_time(0, 0);
  // 4 iterations, the first already 1 s along.
  clock.begin_actor_segment(0, 4, 1, 10);
  const RunTimes& run = clock.at(0);
  EXPECT_EQ(run.analytic_end_s, -1.0);
  EXPECT_EQ(run.estimated_total_s, 9.0);
  EXPECT_EQ(clock.expected_end_s(0), 19.0);
  clock.note_rate(0, 0.8);  // a co-tenant slows a rank: noted, no end moves
  EXPECT_EQ(run.progress.rate(), 0.8);
  EXPECT_TRUE(run.progress.slowed());
  EXPECT_EQ(run.analytic_end_s, -1.0);
}

// A time-sliced job is stopped and restarted every slice, each run leaving
// its far-off end behind: dropped once they outnumber what the heap held
// after the last drop, they do not grow the heap over the run, and the live
// ends still come due in order.
TEST(RunClock, StaleEndsOfRestartedJobsDoNotAccumulate) {
  RunClock clock(2);
  clock.end_at(1, 5e8);  // a long job that keeps running
  for (int slice = 0; slice < 100000; ++slice) {
    clock.stop(0);
    clock.end_at(0, 1e9 - slice);  // each restart's end, far past the slice
    clock.drop_stale();
    ASSERT_LE(clock.pending_ends(), 2049u) << "slice " << slice;
  }
  EXPECT_EQ(clock.next_s(), 5e8);
  std::vector<RunClock::End> due;
  clock.take_due(1e9, due);
  std::size_t live = 0;
  for (const RunClock::End& e : due) live += clock.epoch(e.job) == e.epoch ? 1 : 0;
  EXPECT_EQ(live, 2u);
  ASSERT_GE(due.size(), 2u);
  EXPECT_EQ(due.front().job, 1u);
  EXPECT_EQ(due.front().time_s, 5e8);
}

}  // namespace
}  // namespace vnsim::sim
