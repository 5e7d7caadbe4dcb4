#pragma once
// VirtualFlow weighted fair share ("vf-wfs"; VirtualFlow, Or et al., MLSys'22, after
// andrewor14/models deploy/scheduler.py WFS mode). At every event each job's
// share of the cluster's GPUs is
//   share_j = G * w_j / sum(w), rounded down to a power of 2, at least 1;
// a job whose share reaches its demand gets its demand and the rest is
// shared again among the others (water-filling); while the shares exceed G
// the lowest-priority jobs are halved first (and dropped at 1 when that is
// not enough); GPUs left over double the highest-priority jobs while they
// stay within their demand. A queued job is admitted only if it does not
// shrink any running job of higher priority. Running jobs whose share
// changed are resized in place (ResizeJob) with their virtual-node count V
// fixed, so their global batch and convergence do not change. A rigid job
// (parameter-server or DP x TP x PP layout: its servers/workers or layout
// are fixed to its requested GPUs) starts only when its whole demand fits in
// the shares, and once running keeps its GPUs until it ends (never resized
// or preempted by vf-wfs).
#include <cstdint>
#include <string>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct VfWfsParams {
  // Priority weights. Trace formats carry no priority, so job j gets
  // priorities[h(id) mod n] (h = FNV-1a of the job id, seeded): with
  // {1, 5, 10} this draws VirtualFlow's three priority classes evenly.
  std::vector<double> priorities = {1.0};
  ResizeMode mode = ResizeMode::InPlace;
  std::uint64_t seed = 0;
};

// One job's input to the share computation.
struct WfsJob {
  double weight = 1;
  int demand = 1;      // most GPUs it may use: min(requested GPUs, V); a rigid job's requested GPUs
  bool rigid = false;  // share is demand or 0, never halved or doubled
};

// The shares of `jobs` (in admission order: earlier wins ties) on `gpus` GPUs;
// 0 means the job does not fit now.
std::vector<int> wfs_shares(const std::vector<WfsJob>& jobs, int gpus);

class VfWfsPolicy : public Policy {
 public:
  explicit VfWfsPolicy(VfWfsParams params = {});
  std::string name() const override { return "vf-wfs"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  double weight_of(const std::string& job_id) const;

 private:
  VfWfsParams params_;
};

}  // namespace vnsim
