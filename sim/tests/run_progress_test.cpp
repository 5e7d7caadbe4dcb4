// RunProgress on its own: progress in alone-seconds at a changing speed.
#include "run_progress.hpp"

#include <gtest/gtest.h>

namespace vnsim::sim {
namespace {

TEST(RunProgress, ProgressIsBankedAtTheOldSpeedWhenTheSpeedChanges) {
  RunProgress p;
  p.begin_run(1, 10);
  EXPECT_EQ(p.progress_s(15), 5.0);
  p.change_rate(0.5, 15);  // 5 s banked, then half speed
  EXPECT_EQ(p.banked_s(), 5.0);
  EXPECT_EQ(p.progress_s(19), 7.0);
  EXPECT_TRUE(p.slowed());
  p.change_rate(1, 19);
  EXPECT_EQ(p.progress_s(21), 9.0);
  EXPECT_TRUE(p.slowed());  // slowed at some point of this run
}

TEST(RunProgress, ANewRunForgetsTheSlowdownANewSegmentKeepsIt) {
  RunProgress p;
  p.begin_run(0.5, 0);
  p.begin_segment(1, 4);  // a quiet ring timed analytically from t = 4
  EXPECT_EQ(p.progress_s(6), 2.0);
  EXPECT_TRUE(p.slowed());
  p.begin_run(1, 10);
  EXPECT_FALSE(p.slowed());
  p.note_rate(0.8);  // a ring's actors keep their own time
  EXPECT_EQ(p.rate(), 0.8);
  EXPECT_TRUE(p.slowed());
}

}  // namespace
}  // namespace vnsim::sim
