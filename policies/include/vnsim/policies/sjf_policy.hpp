#pragma once
// Shortest-job-first and shortest-remaining-time-first (the Tiresias
// simulator's "sjf" and "shortest", SymbioticLab/Tiresias simulator/run_sim.py).
//   "sjf":  non-preemptive; queued jobs in order of estimated duration
//           (QueuedJob::estimated_remaining_s, the engine's alone-run time:
//           an oracle in the simulator), each started if it fits.
//   "srtf": preemptive (Tiresias "shortest"): at every event all runnable
//           jobs are sorted by remaining time = first estimate - executed
//           time (attained GPU-s / GPUs), chosen greedily by GPU count, and
//           running jobs whose GPUs a shorter job needs are preempted.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct ShortestFirstParams {
  std::string placement = "consolidated";
  std::uint64_t seed = 0;  // for the random placement
};

class SjfPolicy : public Policy {
 public:
  explicit SjfPolicy(const ShortestFirstParams& params = {});
  std::string name() const override { return "sjf"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  // Reads running jobs' placements only (non-preemptive).
  bool reads_running_progress() const override { return false; }

 private:
  std::unique_ptr<PlacementStrategy> placement_;
};

class SrtfPolicy : public Policy {
 public:
  explicit SrtfPolicy(const ShortestFirstParams& params = {});
  std::string name() const override { return "srtf"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;

 private:
  // The first duration estimate seen per job (-1: not seen). Remaining time
  // is derived from it and attained service, never from a later estimate,
  // so a job's key is the same whether it is queued or running and the
  // policy cannot flip-flop between two jobs at one instant.
  double total_estimate(JobIndex job, double estimate_now, double executed_s);
  std::vector<double> first_estimate_;
  std::unique_ptr<PlacementStrategy> placement_;
};

}  // namespace vnsim
