// The fluid model of contended rings (fluid_contention.hpp) on cases worked
// out by hand.
#include "fluid_contention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {
namespace {

FluidRing ring(double compute_s, double allreduce_s, std::vector<FluidLinkLoad> loads, double overlap = 0) {
  FluidRing r;
  r.compute_s = compute_s;
  r.allreduce_s = allreduce_s;
  r.overlap_fraction = overlap;
  r.loads = std::move(loads);
  return r;
}

TEST(FluidContention, RingsOnDisjointLinksOrAloneAreNotStretched) {
  const std::vector<double> cap = {10, 10};
  const auto s = fluid_allreduce_stretch({ring(1, 1, {{0, 10}}), ring(1, 1, {{1, 10}})}, cap);
  EXPECT_EQ(s, (std::vector<double>{1, 1}));
  // A ring that crosses a link twice overloads it on its own, but alone it
  // keeps its idle-network time.
  EXPECT_EQ(fluid_allreduce_stretch({ring(1, 1, {{0, 20}})}, cap), std::vector<double>{1});
}

// FluidRings::settle leaves out the rings that share no link: they must
// keep 1 and change nothing else, to the bit. Three contended rings with and
// without two rings that share nothing (one on no link, one alone on its
// own link) between them.
TEST(FluidContention, RingsThatShareNoLinkChangeNoOtherStretch) {
  const std::vector<double> cap = {10, 7, 10};
  const FluidRing a = ring(1, 1, {{0, 10}, {1, 4}}, 0.3);
  const FluidRing b = ring(2, 1, {{0, 6}});
  const FluidRing c = ring(0.5, 2, {{1, 5}});
  const auto without = fluid_allreduce_stretch({a, b, c}, cap);
  const auto with = fluid_allreduce_stretch({a, ring(1, 1, {}), b, ring(1, 3, {{2, 10}}), c}, cap);
  ASSERT_EQ(with.size(), 5u);
  EXPECT_EQ(with[0], without[0]);
  EXPECT_EQ(with[2], without[1]);
  EXPECT_EQ(with[4], without[2]);
  EXPECT_EQ(with[1], 1.0);
  EXPECT_EQ(with[3], 1.0);
  EXPECT_GT(without[0], 1.0);
  EXPECT_GT(without[2], 1.0);
}

// Two equal rings, compute = all-reduce, each filling the link: s = 1 + phi
// with phi = s / (1 + s), so s^2 - s - 1 = 0 and s is the golden ratio.
TEST(FluidContention, TwoEqualRingsOnOneLinkStretchByTheGoldenRatio) {
  const std::vector<double> cap = {10};
  const auto s = fluid_allreduce_stretch({ring(1, 1, {{0, 10}}), ring(1, 1, {{0, 10}})}, cap);
  const double golden = (1 + std::sqrt(5.0)) / 2;
  EXPECT_NEAR(s[0], golden, 1e-9);
  EXPECT_NEAR(s[1], golden, 1e-9);
}

// b only communicates (phi_b = 1), so a's all-reduce always shares: s_a = 2.
// a computes 3 s and then communicates 2 s: phi_a = 2/5, s_b = 1.4.
TEST(FluidContention, AStretchFollowsTheOtherRingsCommFraction) {
  const auto s = fluid_allreduce_stretch({ring(3, 1, {{0, 10}}), ring(0, 1, {{0, 10}})}, {10});
  EXPECT_NEAR(s[0], 2.0, 1e-9);
  EXPECT_NEAR(s[1], 1.4, 1e-9);
}

// Each ring alone uses half the link: even both at once fit, so no stretch.
TEST(FluidContention, RingsThatFitTogetherOnALinkAreNotStretched) {
  const auto s = fluid_allreduce_stretch({ring(1, 1, {{0, 5}}), ring(1, 1, {{0, 5}})}, {10});
  EXPECT_EQ(s, (std::vector<double>{1, 1}));
}

// With the whole compute overlappable (f = 1, C = 2, A = 1) the step is
// max(2, s) and phi = s / 2 while s <= 2: s = 1 + s / 2 gives s = 2, the
// point where the all-reduce just stops hiding behind the compute.
TEST(FluidContention, OverlappedComputeRaisesTheCommFraction) {
  const auto s = fluid_allreduce_stretch({ring(2, 1, {{0, 10}}, 1.0), ring(2, 1, {{0, 10}}, 1.0)},
                                         std::vector<double>{10});
  EXPECT_NEAR(s[0], 2.0, 1e-6);
  EXPECT_NEAR(s[1], 2.0, 1e-6);
}

// The worst link sets the stretch: a shares link 0 with b (phi_b = 1, full
// load: 2) and link 1 with c (phi_c = 1, a quarter of the link: 1.25).
TEST(FluidContention, TheMostLoadedLinkSetsTheStretch) {
  const auto s = fluid_allreduce_stretch(
      {ring(1, 1, {{0, 10}, {1, 10}}), ring(0, 1, {{0, 10}}), ring(0, 1, {{1, 2.5}})}, {10, 10});
  EXPECT_NEAR(s[0], 2.0, 1e-9);
}

// FluidRings::settle solves each group of rings linked through shared links
// on its own (fluid_rings_links.hpp): two groups on disjoint links solved
// together and apart agree within the fixed point's tolerance (solved
// together, the group that converges first runs the other's extra rounds).
TEST(FluidContention, GroupsOnDisjointLinksSolveAsTheyDoTogether) {
  const std::vector<double> cap = {10, 7, 10, 4};
  const FluidRing a = ring(1, 1, {{0, 10}, {1, 4}}, 0.3);
  const FluidRing b = ring(2, 1, {{0, 6}});
  const FluidRing c = ring(0.5, 2, {{1, 5}});
  const FluidRing d = ring(1, 1, {{2, 10}});
  const FluidRing e = ring(0.2, 3, {{2, 9}, {3, 4}}, 0.5);
  const FluidRing f = ring(3, 1, {{3, 3}});
  const auto together = fluid_allreduce_stretch({a, d, b, e, c, f}, cap);
  const auto first = fluid_allreduce_stretch({a, b, c}, {10, 7});
  const FluidRing e2 = ring(0.2, 3, {{0, 9}, {1, 4}}, 0.5);
  const auto second = fluid_allreduce_stretch({ring(1, 1, {{0, 10}}), e2, ring(3, 1, {{1, 3}})}, {10, 4});
  const std::vector<double> apart = {first[0], second[0], first[1], second[1], first[2], second[2]};
  for (std::size_t k = 0; k < apart.size(); ++k) {
    EXPECT_GT(apart[k], 1.0) << k;
    EXPECT_NEAR(together[k], apart[k], 1e-11 * apart[k]) << k;
  }
}

// The fixed point as it was before links under capacity in expectation
// were skipped: every ring's sum over every shared link, every round.
std::vector<double> every_sum(const std::vector<FluidRing>& rings, const std::vector<double>& cap) {
  std::vector<std::vector<std::pair<std::size_t, double>>> users(cap.size());
  for (std::size_t j = 0; j < rings.size(); ++j)
    for (const FluidLinkLoad& l : rings[j].loads) users[l.link].emplace_back(j, l.own_Bps);
  std::vector<double> stretch(rings.size(), 1.0), phi(rings.size());
  for (int round = 0; round < 200; ++round) {
    for (std::size_t j = 0; j < rings.size(); ++j) {
      const FluidRing& r = rings[j];
      const double comm_s = r.allreduce_s * stretch[j];
      const double step_s = overlapped_step_s(r.compute_s, comm_s, r.overlap_fraction);
      phi[j] = step_s > 0 ? std::min(1.0, comm_s / step_s) : 0.0;
    }
    double moved = 0;
    for (std::size_t j = 0; j < rings.size(); ++j) {
      double worst = 1;
      for (const FluidLinkLoad& l : rings[j].loads) {
        if (users[l.link].size() < 2) continue;
        double others = 0;
        for (const auto& [u, own] : users[l.link])
          if (u != j) others += phi[u] * own;
        const double alone = std::max(1.0, l.own_Bps / cap[l.link]);
        worst = std::max(worst, std::max(1.0, (l.own_Bps + others) / cap[l.link]) / alone);
      }
      moved = std::max(moved, std::abs(worst - stretch[j]) / stretch[j]);
      stretch[j] = worst;
    }
    if (moved <= 1e-12) break;
  }
  return stretch;
}

// Links whose expected load fits are skipped without changing a bit: random
// rings on a few links, some overloaded, some not, against every_sum.
TEST(FluidContention, SkippingLinksThatFitChangesNoBit) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t links = 1 + rng() % 6;
    std::vector<double> cap(links);
    for (double& c : cap) c = 5 + 20 * unit(rng);
    std::vector<FluidRing> rings(2 + rng() % 30);
    for (FluidRing& r : rings) {
      r.compute_s = 4 * unit(rng);
      r.allreduce_s = 0.1 + unit(rng);
      r.overlap_fraction = unit(rng) < 0.5 ? 0 : unit(rng);
      std::vector<bool> used(links, false);
      for (unsigned k = 0, n = 1 + rng() % 3; k < n; ++k) {
        const std::size_t l = rng() % links;
        if (used[l]) continue;
        used[l] = true;
        r.loads.push_back(FluidLinkLoad{l, 10 * unit(rng)});
      }
    }
    EXPECT_EQ(fluid_allreduce_stretch(rings, cap), every_sum(rings, cap)) << trial;
  }
}

// 50 rings on one link, together 5 times its capacity, but each
// communicating a tenth of its step: the expected load fits, no one is
// stretched, and no ring's sum over the others is taken.
TEST(FluidContention, ALinkWhoseExpectedLoadFitsIsNotSummedPerRing) {
  std::vector<FluidRing> rings(50, ring(9, 1, {{0, 10}}));
  FluidSolveWork work;
  EXPECT_EQ(fluid_allreduce_stretch(rings, {100}, &work), std::vector<double>(50, 1.0));
  EXPECT_EQ(work.link_sums, 0u);
  // Communicating all the time they overload it: each ring sums the others.
  std::vector<FluidRing> busy(50, ring(0, 1, {{0, 10}}));
  work = {};
  const auto s = fluid_allreduce_stretch(busy, {100}, &work);
  EXPECT_GT(s[0], 1.0);
  EXPECT_GE(work.link_sums, 50u);
}

// 20 rings, always communicating, on a link 20 times overloaded and on one
// twice overloaded: the first one's sum over the others sets every ring's
// stretch, and the second link's bound (its expected load) is below it, so
// no sum is taken there, and nothing changes: the same stretches, with the
// same work, as the rings on the first link alone.
TEST(FluidContention, ALinkThatCannotBeTheWorstIsNotSummed) {
  std::vector<FluidRing> both(20, ring(0, 1, {{0, 10}, {1, 10}}));
  std::vector<FluidRing> one(20, ring(0, 1, {{0, 10}}));
  FluidSolveWork work_both, work_one;
  const auto s = fluid_allreduce_stretch(both, {10, 100}, &work_both);
  EXPECT_EQ(s, fluid_allreduce_stretch(one, {10, 100}, &work_one));
  EXPECT_EQ(s, every_sum(both, {10, 100}));
  EXPECT_GT(s[0], 10.0);
  EXPECT_EQ(work_both.link_sums, work_one.link_sums);
  // The second link first in each ring's list: the same.
  std::vector<FluidRing> swapped(20, ring(0, 1, {{1, 10}, {0, 10}}));
  FluidSolveWork work_swapped;
  EXPECT_EQ(fluid_allreduce_stretch(swapped, {10, 100}, &work_swapped), s);
  EXPECT_EQ(work_swapped.link_sums, work_one.link_sums);
}

// Every ring bounds its stretch on each of its links once a round, the
// link it then sums first included: 20 rings on three links, two of them
// overloaded, over every round.
TEST(FluidContention, ARingBoundsEachOfItsLinksOnceARound) {
  const std::vector<FluidRing> rings(20, ring(0.5, 1, {{0, 10}, {1, 10}, {2, 1}}));
  FluidSolveWork work;
  const auto s = fluid_allreduce_stretch(rings, {10, 50, 100}, &work);
  EXPECT_EQ(s, every_sum(rings, {10, 50, 100}));
  EXPECT_GT(work.rounds, 1u);
  EXPECT_EQ(work.link_bounds, work.rounds * 20 * 3);
}

// A ring's sum over the others on a link starts from the link's sum
// before its own term (the same terms, in the same order): on one link
// of 20 rings, always communicating, the k-th adds the 19 - k terms after
// its own, 190 a round where each adding all 19 others took 380.
TEST(FluidContention, ARingsSumOverTheOthersStartsFromTheLinksSumBeforeIt) {
  const std::vector<FluidRing> rings(20, ring(0, 1, {{0, 10}}));
  FluidSolveWork work;
  EXPECT_EQ(fluid_allreduce_stretch(rings, {10}, &work), every_sum(rings, {10}));
  EXPECT_EQ(work.link_sums, work.rounds * 20);
  EXPECT_EQ(work.sum_terms, work.rounds * 190);
}

// A solver reused for another problem gives what a fresh one gives.
TEST(FluidContention, AReusedSolverSolvesAsAFreshOne) {
  FluidStretchSolver solver;
  const std::vector<FluidRing> big(30, ring(0.5, 1, {{0, 10}, {2, 5}}, 0.2));
  const std::vector<FluidRing> small = {ring(1, 1, {{1, 10}}), ring(2, 1, {{1, 6}})};
  const std::vector<double> big_s(solver.solve(big, {50, 1, 40}));
  EXPECT_EQ(std::vector<double>(solver.solve(small, {1, 10})), fluid_allreduce_stretch(small, {1, 10}));
  EXPECT_EQ(std::vector<double>(solver.solve(big, {50, 1, 40})), big_s);
}

TEST(FluidContention, ALinkWithoutCapacityIsALogicError) {
  EXPECT_THROW(fluid_allreduce_stretch({ring(1, 1, {{0, 10}})}, {0}), std::logic_error);
  EXPECT_THROW(fluid_allreduce_stretch({ring(1, 1, {{1, 10}})}, {10}), std::logic_error);
}

}  // namespace
}  // namespace vnsim::sim
