// The draws that evolve() on several lanes keeps per child
// (pollux::DrawTape): the calling thread records them without building the
// child, a lane breeds the child from them, and the child, its fitness and
// the generator's place must be what breeding from the generator gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "../src/pollux_search.hpp"
#include "pollux_search_testing.hpp"

namespace vnsim {
namespace {

using testing_pollux::same_rows;
using testing_pollux::TwinSearches;

TEST(PolluxTape, AChildBredFromItsRecordedDrawsIsTheChildOfTheGenerator) {
  // Two searches of one seed: `one` records each child's draws and breeds
  // it from the tape, `other` breeds it from its generator, for 3,000
  // children, half of them with the pool's median fitness as the bar. A
  // whole child reads its tape to the end, no further; a child left at the
  // bar reads no more than its tape; every finished child has the same
  // rows and fitness to the bit; the generators stay in step.
  TwinSearches twins(13);
  std::vector<pollux::Individual>& pool = twins.pools[1];
  pollux::DrawTape tape;
  pollux::Individual from_tape;
  pollux::Individual from_generator;
  int left = 0;
  for (int k = 0; k < 3000; ++k) {
    double bar = -std::numeric_limits<double>::infinity();
    if (k % 2 == 1) {
      std::vector<double> fitness;
      for (const pollux::Individual& ind : pool) fitness.push_back(ind.fitness);
      std::nth_element(fitness.begin(), fitness.begin() + static_cast<std::ptrdiff_t>(fitness.size() / 2),
                       fitness.end());
      bar = fitness[fitness.size() / 2];
    }
    const pollux::Individual& a = twins.one.tournament(pool);
    const pollux::Individual& b = twins.one.tournament(pool);
    ASSERT_EQ(&twins.other.tournament(pool), &a);
    ASSERT_EQ(&twins.other.tournament(pool), &b);
    twins.one.record_child_draws(a, b, tape);
    pollux::DrawTape::Reader draws = tape.read();
    const double f_tape = twins.one.breed(draws, a, b, from_tape, bar);
    const double f_generator = twins.other.breed(a, b, from_generator, bar);
    const std::size_t read = static_cast<std::size_t>(draws.next - tape.draws.data());
    ASSERT_EQ(f_tape, f_generator) << "child " << k;
    if (f_tape == -std::numeric_limits<double>::infinity()) {
      ++left;
      ASSERT_LE(read, tape.draws.size()) << "child " << k;
    } else {
      ASSERT_EQ(read, tape.draws.size()) << "child " << k;
      ASSERT_TRUE(same_rows(from_tape, from_generator)) << "child " << k;
    }
    ASSERT_EQ(twins.rng_one(), twins.rng_other()) << "child " << k;
    if (f_generator > -std::numeric_limits<double>::infinity())
      pool[static_cast<std::size_t>(k) % pool.size()] = from_generator;
  }
  EXPECT_GT(left, 100);
}

TEST(PolluxTape, ARecorderKeepsEveryDrawAcrossBlocksAndTheGeneratorGoesOnAfterThem) {
  // DrawTape::Recorder reads the generator's block in place and copies it
  // to the tape when the block ends and at close(): tapes of 0 to 1,000
  // draws (a block holds 312), some after single draws, keep the draws of
  // a twin generator in order, and the generator goes on after the last.
  Mt19937_64Blocks recorded(21);
  Mt19937_64Blocks twin(21);
  pollux::DrawTape tape;
  std::size_t count = 0;
  for (int k = 0; k < 300; ++k) {
    if (k % 3 == 0) {
      ASSERT_EQ(recorded(), twin());
    }
    pollux::DrawTape::Recorder recorder = tape.record(recorded);
    for (std::size_t i = 0; i < count; ++i) recorder();
    recorder.close();
    ASSERT_EQ(tape.draws.size(), count) << "tape " << k;
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(tape.draws[i], twin()) << "tape " << k << ", draw " << i;
    ASSERT_EQ(recorded(), twin()) << "tape " << k;
    count = (count * 13 + 5) % 1001;
  }
}

}  // namespace
}  // namespace vnsim
