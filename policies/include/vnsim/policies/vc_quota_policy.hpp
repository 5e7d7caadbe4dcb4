#pragma once
// Virtual-cluster quota mode (docs/POLICIES.md, "Virtual-cluster quotas").
// Each VC (JobSpec::vc, the `cluster` column of pollux-philly traces) owns a
// number of GPUs; its jobs are scheduled by their own instance of the chosen
// policy and together hold at most that many GPUs. This is how Philly ran its
// VCs (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for
// DNN Training Workloads", USENIX ATC'19, section 2: each VC has a quota of
// GPUs and jobs of a VC queue when the VC is at its quota).
//
// Borrowing (optional): a VC may start jobs beyond its quota on GPUs no
// other VC's queued in-quota job needs ("lendable" GPUs). When an owner's
// in-quota job then lacks free GPUs, the borrowers (jobs of VCs above their
// quota, newest start first) are preempted at that decision until the
// owner's GPUs are free again: borrowed GPUs are taken back at once.
//
// The wrapper is engine-free, so the simulator and the real executor both get
// it. Only policies that start and preempt whole jobs at their requested size
// compose with it (kVcQuotaPolicies); make_vc_quota_policy rejects the others.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

// VC name -> its quota in GPUs. Jobs without a VC belong to the VC "-".
struct VcQuotas {
  std::map<std::string, int> gpus;
};

// The VC name a job is counted under ("-" for jobs without one).
std::string vc_name_of(const JobSpec& job);

// Reads a quota file: CSV with the header `vc,gpus`, one VC per line, `#`
// comments and blank lines ignored. Errors name the file and line.
VcQuotas read_vc_quotas(const std::string& path);

// The derived rule: every VC first gets its largest job's GPU count (so each
// job fits within its own VC), then the remaining GPUs are split in
// proportion to each VC's GPU-time (sum of gpus x trace duration; gpus alone
// when the trace records no duration), by largest remainders (ties: VC name).
// The quotas sum to `total_gpus`. Throws InputError when the largest jobs
// alone need more than the cluster.
VcQuotas derive_vc_quotas(const std::vector<JobSpec>& jobs, int total_gpus);

// Throws InputError when a job's VC has no quota, or the quotas sum to more
// than the cluster's GPUs.
void check_vc_quotas(const VcQuotas& quotas, const std::vector<JobSpec>& jobs, int total_gpus);

// The quotas of `--vc-quotas SOURCE` (vnsim replay, vnexec run): "trace"
// derives them from the jobs (derive_vc_quotas), anything else is a quota
// file (read_vc_quotas); either way checked against the jobs and cluster.
VcQuotas vc_quotas_from_source(const std::string& source, const std::vector<JobSpec>& jobs, int total_gpus);

// The quotas in the quota file format (`vc,gpus`), as read_vc_quotas reads
// them back: what a run writes as vc_quotas.csv, derived quotas included.
std::string vc_quotas_csv(const VcQuotas& quotas);

// Policies that compose with quotas (non-elastic, whole-job starts).
bool policy_supports_vc_quotas(const std::string& policy_name);

// Wraps `policy_name` (built by `factory`, one instance per VC). Throws
// InputError naming the policy when it cannot honour quotas.
std::unique_ptr<Policy> make_vc_quota_policy(const std::string& policy_name,
                                             std::function<std::unique_ptr<Policy>()> factory,
                                             VcQuotas quotas, bool borrowing);

class VcQuotaPolicy : public Policy {
 public:
  VcQuotaPolicy(std::string inner_name, std::function<std::unique_ptr<Policy>()> factory, VcQuotas quotas,
                bool borrowing);
  std::string name() const override;
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

 private:
  struct Vc {
    std::string name;
    int quota = 0;
    std::unique_ptr<Policy> policy;  // made on first use
  };
  int vc_index(JobIndex job, const JobSpec& spec);

  std::string inner_name_;
  std::function<std::unique_ptr<Policy>()> factory_;
  bool borrowing_;
  bool strict_order_;  // fifo: a VC's jobs start in submission order only
  bool in_order_;      // fifo, fifo-backfill: jobs are taken in submission order
  bool preemptive_;    // srtf, tiresias, themis, gandiva: may preempt within the quota
  std::vector<Vc> vcs_;
  std::unordered_map<std::string, int> vc_by_name_;
  std::vector<int> vc_of_job_;  // by job index, -1 = not looked up yet
};

}  // namespace vnsim
