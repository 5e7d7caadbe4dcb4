// Mt19937_64Blocks must draw the sequence of std::mt19937_64 (which the
// standard fixes): Pollux's decisions depend on every draw.
#include "vnsim/policies/mt19937_64_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

namespace vnsim {
namespace {

TEST(Mt19937_64Blocks, DrawsTheSequenceOfStdMt19937_64) {
  for (const std::uint64_t seed :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5489}, std::uint64_t{42}, ~std::uint64_t{0}}) {
    std::mt19937_64 reference(seed);
    Mt19937_64Blocks blocks(seed);
    for (int i = 0; i < 5000; ++i) ASSERT_EQ(blocks(), reference()) << "seed " << seed << ", draw " << i;
  }
  // The standard's check value: the 10,000th draw of a default-seeded engine.
  Mt19937_64Blocks fresh;
  for (int i = 1; i < 10000; ++i) fresh();
  EXPECT_EQ(fresh(), 9981545732273789042ULL);
}

TEST(Mt19937_64Blocks, ReseedingStartsTheSequenceAgain) {
  Mt19937_64Blocks a(7);
  const std::uint64_t first = a();
  for (int i = 0; i < 400; ++i) a();
  a.seed(7);
  EXPECT_EQ(a(), first);
}

TEST(Mt19937_64Blocks, DrawsInBulkAreTheSequenceOfSingleDraws) {
  // pending(), block_end() and drawn_to(), as Pollux's DrawTape::Recorder
  // uses them, between single draws and across blocks (312 draws each):
  // the same sequence as std::mt19937_64, none skipped or drawn twice.
  std::mt19937_64 reference(3);
  Mt19937_64Blocks blocks(3);
  std::size_t count = 1;
  for (int round = 0; round < 400; ++round) {
    for (int i = 0; i < round % 7; ++i) ASSERT_EQ(blocks(), reference()) << "round " << round;
    std::size_t left = count;
    while (left > 0) {
      const std::uint64_t* from = blocks.pending();
      const std::uint64_t* end = blocks.block_end();
      ASSERT_LT(from, end);
      const std::size_t take = std::min<std::size_t>(left, static_cast<std::size_t>(end - from));
      for (std::size_t i = 0; i < take; ++i) ASSERT_EQ(from[i], reference()) << "round " << round;
      blocks.drawn_to(from + take);
      left -= take;
    }
    count = count * 7 % 401;  // 0 to 400 draws: within a block and across one or two
  }
  EXPECT_EQ(blocks(), reference());
}

}  // namespace
}  // namespace vnsim
