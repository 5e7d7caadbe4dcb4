#pragma once
// What a run's Policy::decide() calls cost: run.json's scheduler_* fields
// (docs/OUTPUTS.md). The counts are deterministic (the same on every run of
// the same inputs); the times are not.
//
// Reading the process CPU clock is a system call (about 0.4 to 0.7 µs on
// Linux, no vDSO), more than a FIFO decide() call costs, so not every call
// is timed: every call at the policy's timer (a round-based policy's rounds,
// where its searches run) and about 1 in 64 of the others, chosen by the
// golden-ratio sequence over the calls of their kind (aperiodic, so a policy
// that alternates a deciding call and an empty one is sampled in both). The
// CPU time of each kind is its measured calls' time scaled to all its calls.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace vnsim {

class DecisionCost {
 public:
  // Whether the next call of this kind is to be timed with the CPU clock.
  // `at_timer`: the policy's timer is due; `unchanged`: the call is told
  // of no changed job (InputChanges::jobs() empty).
  bool measures(bool at_timer, bool unchanged) const;
  // One call, handed `active_jobs` (queued + running), which returned
  // decisions or not (`decided`); `cpu_s` when measures() said so.
  void add(bool at_timer, bool unchanged, bool decided, std::size_t active_jobs, double wall_s,
           std::optional<double> cpu_s);

  std::uint64_t calls() const;
  double active_jobs_mean() const;
  double wall_s() const { return wall_s_; }  // every call, steady clock
  std::uint64_t unchanged_calls() const;
  std::uint64_t measured_calls() const;
  // Process CPU time inside decide() (a policy's worker threads included),
  // estimated from the measured calls; the time of the clock reads
  // themselves (about one read per measured call) is part of it.
  double cpu_s() const;
  double unchanged_cpu_s() const;
  // The calls told of no changed job that also decided nothing: rounds a
  // policy could have skipped, and their CPU time (estimated the same way).
  std::uint64_t idle_calls() const;
  double idle_cpu_s() const;

 private:
  struct Kind {
    std::uint64_t calls = 0;
    std::uint64_t measured = 0;
    double cpu_s = 0;        // of the measured calls
    std::uint64_t idle = 0;  // unchanged calls that decided nothing
    double idle_cpu_s = 0;   // of the measured ones among them
    double estimate_s(double measured_s) const;
  };
  static std::size_t kind(bool at_timer, bool unchanged) {
    return (at_timer ? 2u : 0u) + (unchanged ? 1u : 0u);
  }
  std::array<Kind, 4> kinds_;
  std::uint64_t active_jobs_ = 0;  // summed over the calls
  double wall_s_ = 0;
};

}  // namespace vnsim
