#pragma once
// Gandiva-style time-slicing (Gandiva, Xiao et al., OSDI'18; as the Tiresias
// simulator's cluster.py time_slicing_execute rotates jobs every 60 s). While the cluster is
// oversubscribed, jobs take turns: at every slice boundary (multiples of
// slice_s) the jobs that have waited longest since they last ran get the
// GPUs, and running jobs give them up, the one that has held its GPUs
// longest first (suspend = PreemptJob, resume = StartJob). Between
// boundaries, free GPUs are filled in the same order without preemption.
//
// With packing on (gandiva_packing.cpp, docs/POLICIES.md): when a job still
// waits after the pass, it is packed onto the GPUs of a running job, each
// holding half of every GPU; at the next slice boundary the pair is
// "measured" (the interference table) and unpacked if its combined
// throughput is below 1, and that pair of job families is not packed again
// on that GPU type. Jobs that ask for a GPU share (JobSpec::gpu_milli) get
// it: on free GPUs through the time-slicing pass, else on the fullest GPU
// in use that holds it.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct GandivaParams {
  double slice_s = 60;  // Tiresias simulator's time_slicing_execute rotation
  std::string placement = "consolidated";
  std::uint64_t seed = 0;
  bool packing = false;  // GPU sharing; off keeps every GPU exclusive
  // 0: boundaries every slice_s. N > 0: after a boundary that leaves W jobs
  // waiting, the next one comes slice_s * ceil(W / N) later (at least
  // slice_s), so the swaps per simulated second stay about those of N
  // waiting jobs; arrivals and ends in between do not move it.
  int slice_jobs = 0;
};

class GandivaPolicy : public Policy {
 public:
  explicit GandivaPolicy(GandivaParams params = {});
  std::string name() const override { return "gandiva"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

 private:
  // The next boundary after a call at now_s that leaves `waiting` jobs waiting.
  double next_boundary_s(double now_s, bool boundary, std::size_t waiting) const;
  // GPU sharing (gandiva_packing.cpp).
  std::vector<Decision> unpack_bad_pairs(const SchedulerInput& input);
  std::vector<Decision> place_shares(const SchedulerInput& input, const std::vector<const QueuedJob*>& order);
  std::vector<Decision> pack(const SchedulerInput& input, const std::vector<const QueuedJob*>& order);
  bool pair_allowed(const std::string& gpu_type, const JobSpec& a, const JobSpec& b) const;
  // The queued jobs in turn order (gandiva_turns.cpp).
  std::vector<const QueuedJob*> turn_order(const SchedulerInput& input);

  GandivaParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<double> stopped_at_s_;  // by job index: when it was last suspended, -1 never
  std::vector<char> was_running_;
  double next_slice_s_ = std::numeric_limits<double>::infinity();
  std::vector<double> packed_at_s_;  // by job index: when this policy packed it, -1 when not packed
  std::set<std::tuple<std::string, std::string, std::string>> bad_pairs_;  // (GPU type, family, family)
  // The turn order of the last call's queued jobs, (since, job) ascending,
  // kept from call to call: a queued job's key does not change while it
  // waits, so each call merges in only the jobs that joined the queue
  // instead of sorting the whole queue at every slice.
  struct Turn {
    double since_s;
    JobIndex job;
  };
  std::vector<Turn> turns_;
  std::vector<char> in_turns_;            // by job index: has an entry in turns_
  std::vector<std::uint64_t> seen_call_;  // by job index: the last call that listed it queued
  std::vector<double> since_s_;           // by job index: its key in that call
  std::vector<const QueuedJob*> queued_;  // by job index: its entry in that call's input
  std::uint64_t call_ = 0;
};

}  // namespace vnsim
