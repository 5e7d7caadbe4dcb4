#pragma once
// Test helper: fails the test at the first over-committed GPU (summed share
// above kGpuMilli), release by a non-holder, or GPU still held at the end.
#include <gtest/gtest.h>

#include "vnsim/sim/allocation_check.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::testing {

inline void expect_no_overcommit(const ReplayResult& r, int gpu_count) {
  EXPECT_EQ(first_allocation_error(r.allocations, gpu_count), "");
}

}  // namespace vnsim::testing
