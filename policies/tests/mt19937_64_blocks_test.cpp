// Mt19937_64Blocks must draw the sequence of std::mt19937_64 (which the
// standard fixes): Pollux's decisions depend on every draw.
#include "vnsim/policies/mt19937_64_blocks.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vnsim
