// DecisionCost: which decide() calls get their CPU time read, and the CPU
// time of all calls estimated from them, worked out by hand.
#include "vnsim/policies/decision_cost.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace vnsim {
namespace {

// Adds `calls` calls of one kind, `cpu(n)` seconds each for the n-th,
// which decide something when `decided(n)`.
template <class Cpu, class Decided>
void add_calls(DecisionCost& cost, int calls, bool at_timer, bool unchanged, Cpu cpu, Decided decided) {
  for (int n = 0; n < calls; ++n) {
    const bool timed = cost.measures(at_timer, unchanged);
    cost.add(at_timer, unchanged, decided(n), 10, 1e-6, timed ? std::optional<double>(cpu(n)) : std::nullopt);
  }
}
template <class Cpu>
void add_calls(DecisionCost& cost, int calls, bool at_timer, bool unchanged, Cpu cpu) {
  add_calls(cost, calls, at_timer, unchanged, cpu, [](int) { return true; });
}

TEST(DecisionCost, EveryCallAtTheTimerIsTimed) {
  DecisionCost cost;
  add_calls(cost, 50, /*at_timer=*/true, /*unchanged=*/true, [](int) { return 2.0; });
  EXPECT_EQ(cost.calls(), 50u);
  EXPECT_EQ(cost.measured_calls(), 50u);
  EXPECT_DOUBLE_EQ(cost.cpu_s(), 100.0);
  EXPECT_DOUBLE_EQ(cost.unchanged_cpu_s(), 100.0);
  EXPECT_EQ(cost.unchanged_calls(), 50u);
}

// A policy that alternates a deciding call (3 s) and the empty call after
// it (1 s): a sample of every 64th call would see only one of the two; the
// golden-ratio sequence times 1,000 of 64,000 calls, 501 of them even, so
// the estimate is 64,000 x 1.998 s, not 64,000 x 1 s.
TEST(DecisionCost, OtherCallsAreSampledOneIn64WithoutAPeriodAndScaledToAllCalls) {
  DecisionCost cost;
  add_calls(cost, 64000, false, false, [](int n) { return n % 2 == 0 ? 1.0 : 3.0; });
  EXPECT_EQ(cost.calls(), 64000u);
  EXPECT_EQ(cost.measured_calls(), 1000u);
  EXPECT_DOUBLE_EQ(cost.cpu_s(), (501 * 1.0 + 499 * 3.0) * 64);
  EXPECT_EQ(cost.unchanged_calls(), 0u);
  EXPECT_DOUBLE_EQ(cost.unchanged_cpu_s(), 0);
  EXPECT_DOUBLE_EQ(cost.active_jobs_mean(), 10);
  EXPECT_NEAR(cost.wall_s(), 64000 * 1e-6, 1e-12);
}

// Each kind (at the timer or not, told of changes or not) is scaled by its
// own share: a few expensive rounds are not diluted by many cheap calls.
TEST(DecisionCost, EachKindIsScaledByItsOwnMeasuredShare) {
  DecisionCost cost;
  add_calls(cost, 3, true, false, [](int) { return 5.0; });    // timed: 15
  add_calls(cost, 2, false, true, [](int) { return 0.5; });    // call 0 timed: 0.5 x 2
  add_calls(cost, 1, false, false, [](int) { return 0.25; });  // call 0 timed: 0.25
  EXPECT_EQ(cost.calls(), 6u);
  EXPECT_EQ(cost.measured_calls(), 5u);
  EXPECT_DOUBLE_EQ(cost.cpu_s(), 15 + 1 + 0.25);
  EXPECT_DOUBLE_EQ(cost.unchanged_cpu_s(), 1);
  EXPECT_EQ(cost.idle_calls(), 0u);
}

// Of the calls told of no change, those that decided nothing: at the timer
// every third of 9 (3 x 2 s), and among 640 others every other one, 1 s
// each, of which the sample times 11 (6 idle): 6 x 1 s x 640 / 11.
TEST(DecisionCost, IdleCallsAreTheUnchangedOnesThatDecidedNothing) {
  DecisionCost cost;
  add_calls(
      cost, 9, true, true, [](int) { return 2.0; }, [](int n) { return n % 3 != 0; });
  add_calls(
      cost, 640, false, true, [](int) { return 1.0; }, [](int n) { return n % 2 != 0; });
  add_calls(
      cost, 5, false, false, [](int) { return 1.0; }, [](int) { return false; });  // changed: never idle
  EXPECT_EQ(cost.idle_calls(), 3u + 320);
  EXPECT_EQ(cost.measured_calls(), 9u + 11 + 1);
  EXPECT_DOUBLE_EQ(cost.idle_cpu_s(), 3 * 2.0 + 6 * 1.0 * 640 / 11);
  EXPECT_DOUBLE_EQ(cost.unchanged_cpu_s(), 9 * 2.0 + 640 * 1.0);
}

}  // namespace
}  // namespace vnsim
