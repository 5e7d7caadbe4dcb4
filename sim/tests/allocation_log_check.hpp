#pragma once
// Replays an allocation log in order and fails the test at the first GPU
// held by two jobs, released by a non-holder, or still held at the end.
#include <gtest/gtest.h>

#include <vector>

#include "vnsim/sim/replay.hpp"

namespace vnsim::testing {

inline void expect_no_overcommit(const ReplayResult& r, int gpu_count) {
  std::vector<long long> holder(gpu_count, -1);
  double last_t = 0;
  for (const auto& e : r.allocations) {
    ASSERT_GE(e.time_s, last_t) << "allocation log goes back in time";
    last_t = e.time_s;
    for (GpuId g : e.gpus) {
      ASSERT_GE(g, 0);
      ASSERT_LT(g, gpu_count);
      if (e.taken) {
        ASSERT_EQ(holder[g], -1) << "GPU " << g << " taken by job " << e.job << " at t=" << e.time_s
                                 << " while held by job " << holder[g];
        holder[g] = static_cast<long long>(e.job);
      } else {
        ASSERT_EQ(holder[g], static_cast<long long>(e.job)) << "GPU " << g << " released by a non-holder";
        holder[g] = -1;
      }
    }
  }
  for (int g = 0; g < gpu_count; ++g) EXPECT_EQ(holder[g], -1) << "GPU " << g << " still held at the end";
}

}  // namespace vnsim::testing
