#pragma once
// The policy interface. A policy sees what the cluster and the queues look
// like now and answers with decisions. It never reads wall-clock time and
// includes no SimGrid, CUDA or MPI header, so the same object drives the
// simulator and the real executor.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {

class NoiseScaleCatalog;  // core/goodput.hpp

using JobIndex = std::size_t;  // index of the job in the run's job list

// A GPU's capacity in thousandths: a job holds all of it (exclusive) or a
// share (GPU sharing, docs/HETEROGENEITY.md).
constexpr int kGpuMilli = 1000;

// One job's share of a GPU.
struct GpuTenant {
  JobIndex job;
  int milli;
};

// Which GPUs are free right now, with per-node counts for fast placement.
// "Free" means no tenant at all; sharing policies also look at free_milli.
class ClusterView {
 public:
  ClusterView(const Cluster& cluster, const Topology& topology);

  const Cluster& cluster() const { return cluster_; }
  const Topology& topology() const { return topology_; }
  bool is_free(GpuId g) const { return tenants_[g].empty(); }
  int free_on_node(NodeId n) const { return free_per_node_[n]; }
  int free_total() const { return free_total_; }
  // Free GPUs of one node, ascending.
  std::vector<GpuId> free_gpus_on_node(NodeId n) const;
  // Capacity not held by any tenant, 0..kGpuMilli.
  int free_milli(GpuId g) const { return kGpuMilli - used_milli_[g]; }
  // Jobs on the GPU, in the order they took it.
  const std::vector<GpuTenant>& tenants(GpuId g) const { return tenants_[g]; }

  // Engine side: keep the view in sync. Each GPU of `gpus` gives `milli`
  // (1..kGpuMilli) to the job. Throws std::logic_error when that would take
  // a GPU past kGpuMilli (over-commitment is a bug, never silently allowed).
  void allocate(const std::vector<GpuId>& gpus, JobIndex job, int milli = kGpuMilli);
  void release(const std::vector<GpuId>& gpus, JobIndex job);

 private:
  const Cluster& cluster_;
  const Topology& topology_;
  std::vector<std::vector<GpuTenant>> tenants_;
  std::vector<int> used_milli_;
  std::vector<int> free_per_node_;
  int free_total_ = 0;
};

struct QueuedJob {
  JobIndex index;
  const JobSpec* spec;
  double attained_gpu_s = 0;          // GPU-seconds received so far (before a preemption)
  double estimated_remaining_s = -1;  // -1 when unknown
  // GPU types the job may use: its constraint and the types whose memory
  // holds it (allowed_gpu_types in core/feasibility.hpp), filled by the engine.
  GpuTypeMask allowed_types = kAnyGpuType;
};

struct RunningJob {
  JobIndex index;
  const JobSpec* spec;
  Placement placement;
  double start_s = 0;
  double attained_gpu_s = 0;
  double estimated_remaining_s = -1;
};

// What changed in the queue and the running list since the policy's
// previous decide() call. A policy that keeps its own state between calls
// reads only these jobs instead of every queued and running job, so that
// its per-event cost follows what changed, not the cluster's size.
class InputChanges {
 public:
  virtual ~InputChanges() = default;
  // Jobs whose entry in `queued` or `running` appeared, changed (a new
  // placement) or went since the previous call, each once, in the order
  // they first changed.
  virtual const std::vector<JobIndex>& jobs() const = 0;
  // Where such a job is now: its entry in the call's `queued` or `running`,
  // or nullptr in both (it finished or was rejected). O(log n).
  virtual const QueuedJob* queued(JobIndex job) const = 0;
  virtual const RunningJob* running(JobIndex job) const = 0;
};

struct SchedulerInput {
  double now_s = 0;  // simulated or executor time, never wall-clock
  const ClusterView* view = nullptr;
  std::vector<QueuedJob> queued;  // in submission order
  std::vector<RunningJob> running;
  // GPUs that `running` and the jobs started now may hold together, when
  // that is less than the cluster (VC quota mode: the VC's quota, so that a
  // preemptive policy preempts the VC's own jobs to make room within it);
  // -1 = the whole cluster.
  int gpu_capacity = -1;
  // Set by PolicyDriver (both engines); nullptr for an input built another
  // way (a test's, a VC's share of the cluster), where the policy must read
  // every job. Valid during the call only.
  const InputChanges* changes = nullptr;
};

struct StartJob {
  JobIndex job;
  Placement placement;  // its vn_per_gpu (when given) sets the job's virtual nodes
  // Share of each GPU the job holds, 1..kGpuMilli; 0 = whole GPUs, which
  // must be free. Only sharing policies set it (docs/HETEROGENEITY.md).
  // long long: with an int here GCC 12 -Wmaybe-uninitialized misfires on
  // moves of the Decision variant.
  long long gpu_milli = 0;
};
struct PreemptJob {
  JobIndex job;
};
// How a running job changes its GPUs. InPlace (VirtualFlow): rebuild the
// communicator and broadcast state to the new GPUs, no lost progress.
// CheckpointRestart (AdaptDL, Pollux, Sia): save, restart the processes on
// the new GPUs, restore; costs come from the model and the cluster spec.
enum class ResizeMode { InPlace, CheckpointRestart };
struct ResizeJob {
  JobIndex job;
  Placement placement;
  ResizeMode mode = ResizeMode::InPlace;
  // New global batch (adaptive batch size); 0 = keep. With a new batch the
  // virtual-node count may change with it (sum of placement.vn_per_gpu).
  int global_batch = 0;
};
struct RejectJob {
  JobIndex job;
  std::string reason;
};
using Decision = std::variant<StartJob, PreemptJob, ResizeJob, RejectJob>;

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // Called on arrivals, completions and timers. Decisions are applied in
  // order; a StartJob must only use GPUs free in the view.
  virtual std::vector<Decision> decide(const SchedulerInput& input) = 0;
  // Whether decide() reads running jobs' attained_gpu_s or
  // estimated_remaining_s. The engine refreshes those for every running job
  // before each call only for a policy that does: thousands of running jobs
  // on a large cluster make that the largest per-event cost of a policy
  // that never looks at them (fifo, sjf). Without the refresh a running
  // entry keeps what the engine gave at its start: the service the job had
  // then (attained_gpu_s) at start_s.
  virtual bool reads_running_progress() const { return true; }
  // Round-based policies return the next time they want to be called.
  virtual std::optional<double> next_timer_s(double /*now_s*/) const { return std::nullopt; }
  // Goodput-aware policies (Pollux, Sia) read these gradient noise profiles
  // instead of the built-in ones (the executor's measured statistics, so
  // that both engines' policies see the same); the catalog must outlive the
  // policy. Others ignore it.
  virtual void use_noise_profiles(const NoiseScaleCatalog& /*noise*/) {}
};

// Builds a policy by name ("fifo"); throws InputError for unknown names.
std::unique_ptr<Policy> make_policy(const std::string& name);
std::vector<std::string> policy_names();

// Policy parameters as key -> value text (CLI --policy-param key=value,
// experiment config). Unknown keys and bad values throw InputError.
using PolicyParams = std::map<std::string, std::string>;
std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyParams& params);
// As above, with the run's seed (--seed, a sweep's seeds) as the `seed`
// parameter of every policy that has one and was not given one in `params`:
// one seed reaches every random choice (placement random, pollux's genetic
// search, vf-wfs' priority draw) unless a policy parameter overrides it.
std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyParams& params,
                                    std::uint64_t run_seed);
// One row of a policy's parameter table (policy_registration.hpp).
struct PolicyParamInfo {
  std::string key;
  std::string default_value;  // as `--policy-param key=...` would give it
  std::string range;          // the values accepted, e.g. "> 0", "whole 1..1000000", "off | on"
  std::string meaning;
};
// The parameters `name` accepts, in its table's order (for `vnsim policies`).
std::vector<PolicyParamInfo> policy_parameters(const std::string& name);

}  // namespace vnsim
