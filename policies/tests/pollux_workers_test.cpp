// The pool that breeds Pollux's children on several lanes
// (policies/src/pollux_workers.hpp): every published item runs once per
// epoch, and the lanes back off where the caller ran every item alone.
#include "../src/pollux_workers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <vector>

#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim {
namespace {

TEST(PolluxWorkers, SearchesOfEightJobsOrMoreBreedOnTwoLanesByDefault) {
  // With a free second core the lanes gain from 8 jobs up: the first 3,000
  // jobs of the heavy trace at load 0.8, whose searches are all under 64
  // jobs, ran in 22 % less wall (docs/PERFORMANCE_HISTORY.md, "Pollux on the
  // heavy trace at load 0.8 (thirteenth pass)"); where the second core is busy
  // the back-off keeps the cost small.
  EXPECT_EQ(PolluxParams{}.search_threads, 2);
  EXPECT_EQ(PolluxParams{}.search_threads_min_jobs, 8);
}

TEST(PolluxWorkers, BackOffAfterEpochsTheCallerRanAlone) {
  // One lane: the caller runs every item, as where the other lanes get no
  // core. After kLazyInARow such epochs the next kBackOff are not worth
  // running on the lanes, then they are again; without back-off, always.
  pollux::SearchWorkers workers(1);
  pollux::SearchWorkers always(1, false);
  auto epoch = [](pollux::SearchWorkers& w) {
    w.begin(
        10, [](void*, std::size_t, int) {}, nullptr);
    w.publish(10);
    w.finish();
  };
  for (int e = 0; e < pollux::SearchWorkers::kLazyInARow; ++e) {
    ASSERT_TRUE(workers.worth_it()) << "epoch " << e;
    epoch(workers);
    ASSERT_TRUE(always.worth_it());
    epoch(always);
  }
  for (int e = 0; e < pollux::SearchWorkers::kBackOff; ++e) ASSERT_FALSE(workers.worth_it()) << "epoch " << e;
  EXPECT_TRUE(workers.worth_it());
  EXPECT_TRUE(always.worth_it());
}

TEST(PolluxWorkers, RunEveryPublishedItemOnceInEveryEpoch) {
  // 3 lanes, 2,000 epochs of 1 to 40 items published one at a time: each
  // item runs once, after it was published, on a lane in range.
  pollux::SearchWorkers workers(3);
  ASSERT_EQ(workers.lanes(), 3);
  struct Epoch {
    std::vector<std::atomic<int>> runs;
    std::atomic<std::size_t> published{0};
    std::atomic<int> wrong{0};
    explicit Epoch(std::size_t n) : runs(n) {}
  };
  for (std::size_t e = 0; e < 2000; ++e) {
    Epoch epoch(1 + e % 40);
    workers.begin(
        epoch.runs.size(),
        [](void* context, std::size_t item, int lane) {
          Epoch& ep = *static_cast<Epoch*>(context);
          if (item >= ep.published.load() || lane < 0 || lane >= 3) ++ep.wrong;
          ++ep.runs[item];
        },
        &epoch);
    for (std::size_t i = 0; i < epoch.runs.size(); ++i) {
      epoch.published.store(i + 1);
      workers.publish(i + 1);
    }
    workers.finish();
    ASSERT_EQ(epoch.wrong.load(), 0) << "epoch " << e;
    for (std::size_t i = 0; i < epoch.runs.size(); ++i) ASSERT_EQ(epoch.runs[i].load(), 1) << "epoch " << e;
  }
}

}  // namespace
}  // namespace vnsim
