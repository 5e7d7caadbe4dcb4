#include "fluid_contention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

// Ring j's stretch from link l, where the others put `others_Bps` on it in
// expectation. Alone the ring runs at its idle-network speed even when it
// overloads this link itself (see the header).
double stretch_on(double own_Bps, double others_Bps, double cap_Bps) {
  const double alone = std::max(1.0, own_Bps / cap_Bps);
  return std::max(1.0, (own_Bps + others_Bps) / cap_Bps) / alone;
}

// A bound on the others' sum any one of a link's `users` rings takes there,
// from `expected`, the same sum over all of them in the same order: the
// others' terms are a subset, each >= 0, and each of the two rounded sums
// is within (users - 1) * 1.2e-16 of its exact value, so the margin of
// 1e-9 covers both for fewer than kFluidManyUsers users; beyond it no
// bound is taken.
double others_bound(double expected, std::size_t users) {
  if (users >= kFluidManyUsers) return std::numeric_limits<double>::infinity();
  return expected * (1 + 1e-9);
}

}  // namespace

std::vector<double> fluid_allreduce_stretch(const std::vector<FluidRing>& rings,
                                            const std::vector<double>& capacity_Bps, FluidSolveWork* work) {
  FluidStretchSolver solver;
  return solver.solve(rings, capacity_Bps, work);
}

const std::vector<double>& FluidStretchSolver::solve(std::span<const FluidRing> rings,
                                                     const std::vector<double>& capacity_Bps,
                                                     FluidSolveWork* work) {
  // Who uses each link and with what load, in ring order, so every sum is
  // taken in one order: each link's users in one slice of users_.
  const std::size_t links = capacity_Bps.size();
  first_user_.assign(links + 1, 0);
  for (const FluidRing& r : rings)
    for (const FluidLinkLoad& l : r.loads) {
      if (l.link >= links || !(capacity_Bps[l.link] > 0))
        throw std::logic_error("fluid rings: a link without a positive capacity");
      ++first_user_[l.link + 1];
    }
  for (std::size_t l = 0; l < links; ++l) first_user_[l + 1] += first_user_[l];
  users_.resize(first_user_[links]);
  fill_.assign(first_user_.begin(), first_user_.end() - 1);
  for (std::size_t j = 0; j < rings.size(); ++j)
    for (const FluidLinkLoad& l : rings[j].loads) users_[fill_[l.link]++] = User{j, l.own_Bps};
  const auto user_count = [this](std::size_t l) { return first_user_[l + 1] - first_user_[l]; };
  stretch_.assign(rings.size(), 1.0);
  phi_.resize(rings.size());
  expected_.resize(links);
  expected_bound_.resize(links);
  for (int round = 0; round < kMaxRounds; ++round) {
    for (std::size_t j = 0; j < rings.size(); ++j) phi_[j] = comm_fraction(rings[j], stretch_[j]);
    // Each link's expected load, all its rings together: a bound on what
    // any one of them sees there (below).
    for (std::size_t l = 0; l < links; ++l) {
      const std::size_t n = user_count(l);
      if (n < 2) continue;
      double sum = 0;
      for (std::size_t u = first_user_[l]; u < first_user_[l + 1]; ++u)
        sum += phi_[users_[u].ring] * users_[u].own_Bps;
      expected_[l] = sum;
      expected_bound_[l] = others_bound(sum, n);
    }
    double moved = 0;
    for (std::size_t j = 0; j < rings.size(); ++j) {
      // bound(l): the most link l can stretch j, as exact(l) computes it
      // but from a sum no smaller than the others' (every operation there
      // is monotone, so it is no smaller). The others' sum is taken
      // first on the link that could stretch j most, then only on links
      // whose bound beats what it found: a link whose bound does not
      // cannot change the max, so the stretch is the same bit for bit.
      const auto bound = [&](const FluidLinkLoad& l) {
        const double cap = capacity_Bps[l.link];
        if (user_count(l.link) < 2) return 0.0;
        // The sum below takes the same terms but j's own, each >= 0: when
        // the link's whole expected load with j's own on top fits, j's load
        // there fits too, its term below is exactly 1, and it is skipped,
        // bit for bit.
        if (load_fits_link(l.own_Bps + expected_[l.link], cap, user_count(l.link))) return 0.0;
        return stretch_on(l.own_Bps, expected_bound_[l.link], cap);
      };
      const auto exact = [&](const FluidLinkLoad& l) {
        if (work != nullptr) ++work->link_sums;
        double others = 0;
        for (std::size_t u = first_user_[l.link]; u < first_user_[l.link + 1]; ++u)
          if (users_[u].ring != j) others += phi_[users_[u].ring] * users_[u].own_Bps;
        return stretch_on(l.own_Bps, others, capacity_Bps[l.link]);
      };
      const std::vector<FluidLinkLoad>& loads = rings[j].loads;
      std::size_t top = loads.size();
      double top_bound = 1;
      for (std::size_t k = 0; k < loads.size(); ++k)
        if (const double b = bound(loads[k]); b > top_bound) {
          top_bound = b;
          top = k;
        }
      double worst = 1;
      if (top < loads.size()) {
        worst = std::max(worst, exact(loads[top]));
        for (std::size_t k = 0; k < loads.size(); ++k)
          if (k != top && bound(loads[k]) > worst) worst = std::max(worst, exact(loads[k]));
      }
      moved = std::max(moved, std::abs(worst - stretch_[j]) / stretch_[j]);
      stretch_[j] = worst;
    }
    if (moved <= kTolerance) break;
  }
  return stretch_;
}

}  // namespace vnsim::sim
