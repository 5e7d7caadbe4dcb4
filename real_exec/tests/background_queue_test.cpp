#include "vnsim/real_exec/background_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace vnsim::real_exec {
namespace {

TEST(BackgroundQueue, RunsTasksInOrderOffTheCallersThread) {
  std::vector<int> order;
  std::vector<std::thread::id> ran_on;
  {
    BackgroundQueue q;
    for (int i = 0; i < 5; ++i)
      q.post([&order, &ran_on, i] {
        order.push_back(i);
        ran_on.push_back(std::this_thread::get_id());
      });
  }  // the destructor drains the queue
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  ASSERT_EQ(ran_on.size(), 5u);
  for (const auto& id : ran_on) EXPECT_NE(id, std::this_thread::get_id());
}

TEST(BackgroundQueue, PostReturnsBeforeASlowTaskEndsAndTheDestructorWaitsForIt) {
  std::atomic<bool> done{false};
  const auto t0 = std::chrono::steady_clock::now();
  {
    BackgroundQueue q;
    q.post([&done] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      done = true;
    });
    EXPECT_FALSE(done.load());  // post did not run the task on this thread
  }
  EXPECT_TRUE(done.load());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
}

}  // namespace
}  // namespace vnsim::real_exec
