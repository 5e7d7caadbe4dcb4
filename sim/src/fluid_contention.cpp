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

// What ring j's load on link l would stretch it by alone: the baseline its
// idle-network speed already has, as it runs at that speed even when it
// overloads this link itself (see the header).
double alone_on(double own_Bps, double cap_Bps) {
  return std::max(1.0, own_Bps / cap_Bps);
}

// Ring j's stretch from link l, where the others put `others_Bps` on it in
// expectation; `alone` is alone_on(own_Bps, cap_Bps), which does not change
// from round to round and is taken once per solve.
double stretch_on(double own_Bps, double others_Bps, double cap_Bps, double alone) {
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

// stretch_on(own_Bps, others_Bps, cap_Bps, alone), or a number no smaller,
// without its two divisions (with some 2,700 bounds a round, 28 rounds a
// solve, they were most of a Gandiva slice's solve): `inv_cap` and
// `inv_alone` are 1 / cap_Bps and 1 / alone as rounded once. Each of the
// products is within a few units in the last place (2^-53 relative) of the
// quotient it stands for, so y = (own + others) * inv_cap is within 3 of
// them of (own + others) / cap_Bps: below 1 - 1e-12 the quotient is below
// 1 too, and stretch_on is 1 / alone, exactly inv_alone; otherwise the
// product with a margin of 1e-12 (against some 8 * 1.1e-16 of rounding)
// is no smaller. Only compared, never returned as a stretch.
double stretch_on_at_most(double own_Bps, double others_Bps, double inv_cap, double inv_alone) {
  const double y = (own_Bps + others_Bps) * inv_cap;
  if (y < 1 - 1e-12) return inv_alone;
  return std::max(1.0, y) * inv_alone * (1 + 1e-12);
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
  // slot_[first_load_[j] + k]: ring j's place among the users of its k-th
  // load's link.
  first_load_.resize(rings.size() + 1);
  slot_.clear();
  for (std::size_t j = 0; j < rings.size(); ++j) {
    first_load_[j] = slot_.size();
    for (const FluidLinkLoad& l : rings[j].loads) {
      slot_.push_back(fill_[l.link]);
      users_[fill_[l.link]++] = User{j, l.own_Bps};
    }
  }
  first_load_[rings.size()] = slot_.size();
  term_.resize(users_.size());
  before_.resize(users_.size());
  const auto user_count = [this](std::size_t l) { return first_user_[l + 1] - first_user_[l]; };
  stretch_.assign(rings.size(), 1.0);
  phi_.resize(rings.size());
  expected_.resize(links);
  expected_bound_.resize(links);
  // What does not change from round to round is taken once: with some 150
  // rings of 20 contending links each, 28 rounds a solve, the divisions of
  // the bounds below, each taken twice a round, were most of a Gandiva
  // slice's solve (docs/PERFORMANCE_HISTORY.md, "Gandiva's slices made
  // cheaper (twelfth pass)").
  fit_limit_.resize(links);
  inv_capacity_.resize(links);
  for (std::size_t l = 0; l < links; ++l) {
    fit_limit_[l] = load_fit_limit(capacity_Bps[l], user_count(l));
    inv_capacity_[l] = 1 / capacity_Bps[l];
  }
  alone_.clear();
  inv_alone_.clear();
  std::size_t most_loads = 0;
  for (std::size_t j = 0; j < rings.size(); ++j) {
    for (const FluidLinkLoad& l : rings[j].loads) {
      alone_.push_back(alone_on(l.own_Bps, capacity_Bps[l.link]));
      inv_alone_.push_back(1 / alone_.back());
    }
    most_loads = std::max(most_loads, rings[j].loads.size());
  }
  if (bounds_.size() < most_loads) bounds_.resize(most_loads);
  for (int round = 0; round < kMaxRounds; ++round) {
    if (work != nullptr) ++work->rounds;
    for (std::size_t j = 0; j < rings.size(); ++j) phi_[j] = comm_fraction(rings[j], stretch_[j]);
    // Each link's expected load, all its rings together: a bound on what
    // any one of them sees there (below). Each user's term and the sum
    // before it are kept: a ring's sum over the others (exact, below) adds
    // the same terms in the same order but its own, so it starts where the
    // link's sum stood before its own term, bit for bit.
    for (std::size_t l = 0; l < links; ++l) {
      const std::size_t n = user_count(l);
      if (n < 2) continue;
      double sum = 0;
      for (std::size_t u = first_user_[l]; u < first_user_[l + 1]; ++u) {
        before_[u] = sum;
        term_[u] = phi_[users_[u].ring] * users_[u].own_Bps;
        sum += term_[u];
      }
      expected_[l] = sum;
      expected_bound_[l] = others_bound(sum, n);
    }
    double moved = 0;
    for (std::size_t j = 0; j < rings.size(); ++j) {
      // bound(l): the most link l can stretch j, as exact(l) computes it
      // but from a sum no smaller than the others' (every operation there
      // is monotone, so it is no smaller), or a number no smaller than
      // that (stretch_on_at_most). The others' sum is taken
      // first on the link that could stretch j most, then only on links
      // whose bound beats what it found: a link whose bound does not
      // cannot change the max, so the stretch is the same bit for bit.
      // Each link's bound is taken once a round (bounds_).
      const double* alone = alone_.data() + first_load_[j];
      const double* inv_alone = inv_alone_.data() + first_load_[j];
      const std::size_t* slot = slot_.data() + first_load_[j];
      const std::vector<FluidLinkLoad>& loads = rings[j].loads;
      const auto bound = [&](const FluidLinkLoad& l, double inv_alone_l) {
        if (work != nullptr) ++work->link_bounds;
        if (user_count(l.link) < 2) return 0.0;
        // The sum below takes the same terms but j's own, each >= 0: when
        // the link's whole expected load with j's own on top fits, j's load
        // there fits too, its term below is exactly 1, and it is skipped,
        // bit for bit.
        if (l.own_Bps + expected_[l.link] <= fit_limit_[l.link]) return 0.0;
        return stretch_on_at_most(l.own_Bps, expected_bound_[l.link], inv_capacity_[l.link], inv_alone_l);
      };
      const auto exact = [&](std::size_t k) {
        if (work != nullptr) ++work->link_sums;
        const FluidLinkLoad& l = loads[k];
        double others = before_[slot[k]];
        if (work != nullptr) work->sum_terms += first_user_[l.link + 1] - slot[k] - 1;
        for (std::size_t u = slot[k] + 1; u < first_user_[l.link + 1]; ++u) others += term_[u];
        return stretch_on(l.own_Bps, others, capacity_Bps[l.link], alone[k]);
      };
      std::size_t top = loads.size();
      double top_bound = 1;
      for (std::size_t k = 0; k < loads.size(); ++k) {
        const double b = bounds_[k] = bound(loads[k], inv_alone[k]);
        if (b > top_bound) {
          top_bound = b;
          top = k;
        }
      }
      double worst = 1;
      if (top < loads.size()) {
        worst = std::max(worst, exact(top));
        for (std::size_t k = 0; k < loads.size(); ++k)
          if (k != top && bounds_[k] > worst) worst = std::max(worst, exact(k));
      }
      moved = std::max(moved, std::abs(worst - stretch_[j]) / stretch_[j]);
      stretch_[j] = worst;
    }
    if (moved <= kTolerance) break;
  }
  return stretch_;
}

}  // namespace vnsim::sim
