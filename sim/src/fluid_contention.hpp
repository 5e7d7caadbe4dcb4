#pragma once
// Fluid model of ring jobs that share links (ReplayOptions::fluid_rings):
// instead of simulating each rank's comms, every contended ring progresses at
// a steady rate between changes of the set of running rings. No SimGrid type
// here, so the model is tested on hand-computed cases without an engine.
//
// The model (mean field over comm phases): ring j spends the fraction phi_j
// of its iteration in its all-reduce. While j communicates, it puts own_Bps
// on each of its links (what it moves alone, at its idle-network step), and
// each other ring i on that link is communicating too with probability
// phi_i, adding its own load there. A link whose expected load exceeds its
// capacity stretches j's all-reduce by load / capacity; j's all-reduce takes
// its idle time times the worst stretch over its links, which in turn changes
// phi_j. The fixed point is found by iterating upward from "no contention". A
// ring that overloads a link on its own (crosses it twice) is not stretched
// by that alone: quiet rings are timed as on an idle network
// (ring_allreduce_time_s), and the fluid model keeps that baseline. Phases of
// different rings are taken as independent: rings that stay in lockstep
// collide more often than this, rings that interleave less
// (docs/PERFORMANCE.md, "Fluid rings").
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace vnsim::sim {

struct FluidLinkLoad {
  std::size_t link = 0;  // index into the capacities
  double own_Bps = 0;    // bytes/s the ring moves over it while communicating alone
};

struct FluidRing {
  std::vector<FluidLinkLoad> loads;  // one entry per link, no duplicates
  double compute_s = 0;              // per iteration, slowest rank, at its GPU-sharing speed
  double allreduce_s = 0;            // per iteration, idle network
  double overlap_fraction = 0;       // ModelParams::overlap_fraction
};

// Whether a link's rings, putting `total_Bps` on it together when all of
// them communicate at once, stay under its capacity by far more than the
// rounding of a sum of `users` terms (about users * 1.1e-16 relative). Each
// ring's term in the model is phi * own_Bps <= own_Bps and rounded sums are
// monotone, so then every ring's load there, as the model computes it, is
// <= capacity and the link's stretch is exactly 1: it can slow no one.
// Links with very many rings are never taken to fit (the rounding bound
// assumes fewer terms).
constexpr std::size_t kFluidManyUsers = 1000000;
// The most a link's rings may put on it together and fit (load_fits_link);
// -infinity with very many rings.
inline double load_fit_limit(double capacity_Bps, std::size_t users) {
  return users < kFluidManyUsers ? capacity_Bps * (1 - 1e-9) : -std::numeric_limits<double>::infinity();
}
inline bool load_fits_link(double total_Bps, double capacity_Bps, std::size_t users) {
  return total_Bps <= load_fit_limit(capacity_Bps, users);
}

// Work counters of fluid_allreduce_stretch: how many times it summed the
// other rings' loads on a link for one ring (each O(rings on the link)),
// how many terms those sums added, how many times it bounded a ring's
// stretch on a link (each a few divisions), and its rounds.
struct FluidSolveWork {
  std::size_t link_sums = 0;
  std::size_t sum_terms = 0;
  std::size_t link_bounds = 0;
  std::size_t rounds = 0;
};

// Stretch factor (>= 1) of each ring's all-reduce. `capacity_Bps[l]` is link
// l's bandwidth; rings that share no link with another keep 1. `work`, if
// given, is added to.
std::vector<double> fluid_allreduce_stretch(const std::vector<FluidRing>& rings,
                                            const std::vector<double>& capacity_Bps,
                                            FluidSolveWork* work = nullptr);

// The same fixed point, keeping its working vectors from one solve to the
// next: FluidRings::settle solves at every instant a ring starts or stops,
// and allocating them each time was a good part of its cost
// (docs/PERFORMANCE_HISTORY.md, "Ring starts and stops (tenth pass)").
class FluidStretchSolver {
 public:
  // As fluid_allreduce_stretch; the result is valid until the next solve.
  const std::vector<double>& solve(std::span<const FluidRing> rings, const std::vector<double>& capacity_Bps,
                                   FluidSolveWork* work = nullptr);

 private:
  struct User {
    std::size_t ring;
    double own_Bps;
  };
  std::vector<std::size_t>
      first_user_;  // per link, its users are users_[first_user_[l] .. first_user_[l + 1])
  std::vector<User> users_;
  std::vector<std::size_t> fill_;  // where each link's next user goes, filling users_
  std::vector<double> stretch_, phi_, expected_, expected_bound_;
  // Constant over the rounds: per link, load_fit_limit and 1 / capacity;
  // per ring j and its k-th load, the stretch it takes alone there and its
  // inverse (alone_[first_load_[j] + k], inv_alone_ likewise), and its place
  // among the link's users (slot_, likewise).
  std::vector<double> fit_limit_, inv_capacity_, alone_, inv_alone_;
  std::vector<std::size_t> first_load_, slot_;
  // Per user (users_'s place), in a round: its term of the link's expected
  // load, and the link's sum before it.
  std::vector<double> term_, before_;
  std::vector<double> bounds_;  // one ring's bound on each of its links, in a round
};

}  // namespace vnsim::sim
