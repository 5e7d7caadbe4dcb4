#include "vnsim/policies/decision_cost.hpp"

namespace vnsim {
namespace {

// Call n of a kind is timed when the fractional part of n times the golden
// ratio is below 1/64 (Weyl's equidistribution: a share of 1/64 of the
// calls, spread without a period; call 0 always, so a kind that occurs is
// timed at least once). 2^64 / phi, and 2^64 / 64.
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kShare = std::uint64_t{1} << 58;

}  // namespace

bool DecisionCost::measures(bool at_timer, bool unchanged) const {
  return at_timer || kinds_[kind(at_timer, unchanged)].calls * kGolden < kShare;
}

void DecisionCost::add(bool at_timer, bool unchanged, bool decided, std::size_t active_jobs, double wall_s,
                       std::optional<double> cpu_s) {
  Kind& k = kinds_[kind(at_timer, unchanged)];
  const bool idle = unchanged && !decided;
  ++k.calls;
  k.idle += idle;
  if (cpu_s) {
    ++k.measured;
    k.cpu_s += *cpu_s;
    if (idle) k.idle_cpu_s += *cpu_s;
  }
  active_jobs_ += active_jobs;
  wall_s_ += wall_s;
}

// The measured calls' time (all of them, or a part) scaled to all calls of
// the kind.
double DecisionCost::Kind::estimate_s(double measured_s) const {
  return measured == 0 ? 0 : measured_s * static_cast<double>(calls) / static_cast<double>(measured);
}

std::uint64_t DecisionCost::calls() const {
  std::uint64_t n = 0;
  for (const Kind& k : kinds_) n += k.calls;
  return n;
}

double DecisionCost::active_jobs_mean() const {
  const std::uint64_t n = calls();
  return n == 0 ? 0 : static_cast<double>(active_jobs_) / static_cast<double>(n);
}

std::uint64_t DecisionCost::unchanged_calls() const {
  return kinds_[kind(false, true)].calls + kinds_[kind(true, true)].calls;
}

std::uint64_t DecisionCost::measured_calls() const {
  std::uint64_t n = 0;
  for (const Kind& k : kinds_) n += k.measured;
  return n;
}

double DecisionCost::cpu_s() const {
  double s = 0;
  for (const Kind& k : kinds_) s += k.estimate_s(k.cpu_s);
  return s;
}

double DecisionCost::unchanged_cpu_s() const {
  const Kind& a = kinds_[kind(false, true)];
  const Kind& b = kinds_[kind(true, true)];
  return a.estimate_s(a.cpu_s) + b.estimate_s(b.cpu_s);
}

std::uint64_t DecisionCost::idle_calls() const {
  return kinds_[kind(false, true)].idle + kinds_[kind(true, true)].idle;
}

double DecisionCost::idle_cpu_s() const {
  const Kind& a = kinds_[kind(false, true)];
  const Kind& b = kinds_[kind(true, true)];
  return a.estimate_s(a.idle_cpu_s) + b.estimate_s(b.idle_cpu_s);
}

}  // namespace vnsim
