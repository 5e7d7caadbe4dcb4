#pragma once
// How the replay times multi-node data-parallel ring jobs, chosen once per
// run from the options (docs/PERFORMANCE.md, "Quiet rings" and "Fluid
// rings") instead of being re-derived from the flags at every use.
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

enum class RingTiming {
  Actors,  // one SimGrid actor per GPU, macro-iterations (sim/src/ring_job.cpp)
  Quiet,   // analytic while alone on its links, actors while contended (replay_quiet_rings.cpp)
  Fluid,   // analytic, the all-reduce stretched by the fluid model (replay_fluid_rings.cpp)
};

// Fluid rings (the default) win over quiet rings. Quiet rings need shortened contended
// macro-iterations and M > 0, so never apply to the fidelity references
// (every iteration simulated, or plain macro-iterations).
inline RingTiming ring_timing_of(const ReplayOptions& options) {
  if (options.fluid_rings) return RingTiming::Fluid;
  if (options.quiet_rings && options.shorten_macro_when_contended && options.macro_iterations > 0)
    return RingTiming::Quiet;
  return RingTiming::Actors;
}

}  // namespace vnsim::sim
