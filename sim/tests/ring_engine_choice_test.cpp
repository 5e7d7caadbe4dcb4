// Which ring engine a replay's options choose (ring_engine_of), once per run.
#include <gtest/gtest.h>

#include "ring_timing.hpp"

namespace vnsim::sim {
namespace {

TEST(RingEngineChoice, FluidRingsAreTheDefaultAndWinOverQuietRings) {
  ReplayOptions options;
  EXPECT_EQ(ring_engine_of(options), RingEngine::Fluid);
  options.quiet_rings = true;
  EXPECT_EQ(ring_engine_of(options), RingEngine::Fluid);
}

TEST(RingEngineChoice, QuietRingsNeedShortenedContendedMacroIterations) {
  ReplayOptions options;
  options.fluid_rings = false;
  EXPECT_EQ(ring_engine_of(options), RingEngine::Actors);
  options.quiet_rings = true;
  EXPECT_EQ(ring_engine_of(options), RingEngine::Quiet);
  options.shorten_macro_when_contended = false;  // plain macro-iterations: the fidelity reference
  EXPECT_EQ(ring_engine_of(options), RingEngine::Actors);
  options.shorten_macro_when_contended = true;
  options.macro_iterations = 0;  // every iteration simulated
  EXPECT_EQ(ring_engine_of(options), RingEngine::Actors);
}

}  // namespace
}  // namespace vnsim::sim
