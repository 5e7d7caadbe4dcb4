#include "fluid_contention.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {
namespace {

// Fraction of the iteration during which the all-reduce is in flight.
double comm_fraction(const FluidRing& r, double stretch) {
  const double comm_s = r.allreduce_s * stretch;
  const double step_s = overlapped_step_s(r.compute_s, comm_s, r.overlap_fraction);
  return step_s > 0 ? std::min(1.0, comm_s / step_s) : 0.0;
}

// Converged when no stretch moves by more than this (relative); the
// iteration is monotone from 1, so it only goes up to the fixed point.
constexpr double kTolerance = 1e-12;
constexpr int kMaxRounds = 200;

}  // namespace

std::vector<double> fluid_allreduce_stretch(const std::vector<FluidRing>& rings,
                                            const std::vector<double>& capacity_Bps, FluidSolveWork* work) {
  // Who uses each link and with what load, in ring order, so every sum is
  // taken in one order.
  struct User {
    std::size_t ring;
    double own_Bps;
  };
  std::vector<std::vector<User>> users(capacity_Bps.size());
  for (std::size_t j = 0; j < rings.size(); ++j)
    for (const FluidLinkLoad& l : rings[j].loads) {
      if (l.link >= capacity_Bps.size() || !(capacity_Bps[l.link] > 0))
        throw std::logic_error("fluid rings: a link without a positive capacity");
      users[l.link].push_back(User{j, l.own_Bps});
    }
  std::vector<double> stretch(rings.size(), 1.0);
  std::vector<double> phi(rings.size());
  std::vector<double> expected(capacity_Bps.size());
  for (int round = 0; round < kMaxRounds; ++round) {
    for (std::size_t j = 0; j < rings.size(); ++j) phi[j] = comm_fraction(rings[j], stretch[j]);
    // Each link's expected load, all its rings together: a bound on what
    // any one of them sees there (below).
    for (std::size_t l = 0; l < users.size(); ++l) {
      if (users[l].size() < 2) continue;
      double sum = 0;
      for (const User& u : users[l]) sum += phi[u.ring] * u.own_Bps;
      expected[l] = sum;
    }
    double moved = 0;
    for (std::size_t j = 0; j < rings.size(); ++j) {
      double worst = 1;
      for (const FluidLinkLoad& l : rings[j].loads) {
        if (users[l.link].size() < 2) continue;
        const double cap = capacity_Bps[l.link];
        // The sum below takes the same terms but j's own, each >= 0: when
        // the link's whole expected load with j's own on top fits, j's load
        // there fits too, its term below is exactly 1, and it is skipped,
        // bit for bit.
        if (load_fits_link(l.own_Bps + expected[l.link], cap, users[l.link].size())) continue;
        if (work != nullptr) ++work->link_sums;
        double others = 0;
        for (const User& u : users[l.link])
          if (u.ring != j) others += phi[u.ring] * u.own_Bps;
        // Alone the ring runs at its idle-network speed even when it
        // overloads this link itself (see the header).
        const double alone = std::max(1.0, l.own_Bps / cap);
        worst = std::max(worst, std::max(1.0, (l.own_Bps + others) / cap) / alone);
      }
      moved = std::max(moved, std::abs(worst - stretch[j]) / stretch[j]);
      stretch[j] = worst;
    }
    if (moved <= kTolerance) break;
  }
  return stretch;
}

}  // namespace vnsim::sim
