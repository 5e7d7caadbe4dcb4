// The allocation-log checker on hand-written logs: sound shared logs pass,
// and each kind of bad log is caught with its reason.
#include "vnsim/sim/allocation_check.hpp"

#include <gtest/gtest.h>

namespace vnsim {
namespace {

AllocationEvent take(double t, JobIndex job, std::vector<GpuId> gpus, int milli = kGpuMilli) {
  return AllocationEvent{t, job, true, std::move(gpus), milli};
}
AllocationEvent give(double t, JobIndex job, std::vector<GpuId> gpus, int milli = kGpuMilli) {
  return AllocationEvent{t, job, false, std::move(gpus), milli};
}

TEST(AllocationCheck, SharesUpToOneGpuPass) {
  // 460 + 540 = 1000 on GPU 0; job 2 takes the whole GPU 1, then GPU 0 once empty.
  const std::vector<AllocationEvent> log = {take(0, 0, {0}, 460), take(1, 1, {0}, 540), take(1, 2, {1}),
                                            give(2, 0, {0}, 460), give(3, 1, {0}, 540), give(3, 2, {1}),
                                            take(3, 2, {0}),      give(4, 2, {0})};
  EXPECT_EQ(first_allocation_error(log, 2), "");
}

TEST(AllocationCheck, DeliberatelyOverCommittedLogFails) {
  // 600 + 500 = 1100 milli on GPU 1 while both hold it.
  const std::vector<AllocationEvent> log = {take(0, 0, {0, 1}, 600), take(5, 1, {1}, 500),
                                            give(9, 0, {0, 1}, 600), give(9, 1, {1}, 500)};
  EXPECT_EQ(first_allocation_error(log, 2),
            "event 1 (t=5.000000, job 1): takes 500 milli of GPU 1, already held by job 0 (600): "
            "over-committed");
}

TEST(AllocationCheck, WholeGpuOnASharedOneFails) {
  const std::vector<AllocationEvent> log = {take(0, 0, {0}, 1), take(0, 1, {0})};
  EXPECT_NE(first_allocation_error(log, 1).find("over-committed"), std::string::npos);
}

TEST(AllocationCheck, OtherBadLogsFail) {
  EXPECT_EQ(first_allocation_error({give(0, 3, {0})}, 1),
            "event 0 (t=0.000000, job 3): gives back GPU 0, which it does not hold");
  EXPECT_EQ(first_allocation_error({take(0, 3, {0}, 250)}, 1), "GPU 0 still held by job 3 at the end");
  EXPECT_EQ(first_allocation_error({take(1, 3, {0}), give(0, 3, {0})}, 1),
            "event 1 (t=0.000000, job 3): goes back in time");
  EXPECT_EQ(first_allocation_error({take(0, 3, {2})}, 2),
            "event 0 (t=0.000000, job 3): GPU 2 does not exist");
  EXPECT_EQ(first_allocation_error({take(0, 3, {0}, 1001)}, 1),
            "event 0 (t=0.000000, job 3): share 1001 milli is outside 1..1000");
  EXPECT_EQ(first_allocation_error({take(0, 3, {0}, 300), give(1, 3, {0}, 200)}, 1),
            "event 1 (t=1.000000, job 3): gives back 200 milli of GPU 0, holds 300");
}

}  // namespace
}  // namespace vnsim
