// Gavel's ordered picks (policies/src/gavel_picks.hpp): the grouped heaps
// hand take the same picks in the same order as one heap, and neither hands
// it a pick wider than its type's room.
#include "../src/gavel_picks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace vnsim::gavel_detail {
namespace {

struct Taken {
  std::vector<std::size_t> order;  // positions in picks, as handed to take
  std::size_t count = 0;
};

// A greedy like the round's: a job is chosen once, on the first of its picks
// that fits; the call goes on while some type has room for a 1-GPU job.
Taken run(const std::vector<Pick>& picks, const std::vector<JobIndex>& index_of, std::vector<int> room,
          std::size_t few) {
  Taken t;
  std::vector<char> chosen(index_of.size(), 0);
  t.count = take_in_order(
      picks, index_of, room,
      [&](const Pick& p) {
        EXPECT_GE(room[static_cast<std::size_t>(p.type)], p.gpus) << "a pick without room was handed out";
        t.order.push_back(static_cast<std::size_t>(&p - picks.data()));
        if (chosen[p.pos] == 0) {
          chosen[p.pos] = 1;
          room[static_cast<std::size_t>(p.type)] -= p.gpus;
        }
        return *std::max_element(room.begin(), room.end()) >= 1;
      },
      few);
  return t;
}

// 2,000 jobs of widths 1-32 on two types with 300 and 200 GPUs, priorities
// drawn from a few values so that the ties go down to the index and type:
// the grouped heaps (few = 0) and one heap (few = all) hand out the same
// picks in the same order, and that order is the full sort's, without the
// picks that had no room when their turn came.
TEST(GavelPicks, GroupedHeapsTakeTheOrderOfOneHeap) {
  std::mt19937_64 rng(7);
  const int widths[] = {1, 2, 4, 8, 16, 24, 32};
  std::vector<Pick> picks;
  std::vector<JobIndex> index_of;
  for (std::size_t pos = 0; pos < 2000; ++pos) {
    index_of.push_back(static_cast<JobIndex>(pos * 3 + rng() % 3));
    const int gpus = widths[rng() % 7];
    for (int type = 0; type < 2; ++type)
      if (rng() % 4 != 0)
        picks.push_back(Pick{static_cast<double>(rng() % 5), static_cast<double>(rng() % 3) / 4, pos, type,
                             static_cast<double>(1 + rng() % 2), gpus});
  }
  const std::vector<int> room = {300, 200};
  const Taken grouped = run(picks, index_of, room, 0);
  const Taken one = run(picks, index_of, room, picks.size());
  EXPECT_EQ(grouped.order, one.order);
  EXPECT_EQ(grouped.count, grouped.order.size());
  EXPECT_EQ(one.count, one.order.size());

  // The full sort, passing over what has no room at its turn.
  std::vector<std::size_t> sorted(picks.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
  auto key = [&](std::size_t i) {
    const Pick& p = picks[i];
    return PickKey{p.priority, p.x, index_of[p.pos], 0, p.rate, p.type, p.gpus, i};
  };
  std::sort(sorted.begin(), sorted.end(),
            [&](std::size_t a, std::size_t b) { return comes_before(key(a), key(b)); });
  std::vector<int> left = room;
  std::vector<char> chosen(index_of.size(), 0);
  std::vector<std::size_t> expected;
  for (std::size_t i : sorted) {
    const Pick& p = picks[i];
    if (left[static_cast<std::size_t>(p.type)] < p.gpus) continue;
    expected.push_back(i);
    if (chosen[p.pos] == 0) {
      chosen[p.pos] = 1;
      left[static_cast<std::size_t>(p.type)] -= p.gpus;
    }
    if (*std::max_element(left.begin(), left.end()) < 1) break;
  }
  EXPECT_EQ(grouped.order, expected);
  // The room runs out long before the 3,000-odd picks do.
  EXPECT_LT(grouped.count, picks.size() / 2);
}

}  // namespace
}  // namespace vnsim::gavel_detail
