#pragma once
// Trace replay on the SimGrid model of a cluster. This header exposes no
// SimGrid type: SimGrid stays inside sim/src.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_record.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

// A node leaves the cluster at `time_s` (spot revocation or failure) and comes
// back `down_s` later. Jobs on it lose their work since their last checkpoint
// and go back to the queue (docs/SPOT.md).
struct NodeEvent {
  double time_s = 0;
  NodeId node = 0;
  double down_s = 0;
};

// Where a replay stands, for progress reports (ReplayOptions::progress).
struct ReplayProgress {
  std::size_t jobs_done = 0;  // completed or rejected
  std::size_t jobs_total = 0;
  double simulated_s = 0;     // the simulated clock
  double first_submit_s = 0;  // the trace's submit span: simulated time
  double last_submit_s = 0;   // past it, only the running and queued jobs are left
};

// Why an allocation changed (allocations.csv's `cause`, docs/OUTPUTS.md).
// Preempt: the policy stopped the job; NodeDown: a node the job held left the
// cluster (a spot revocation, a failure or a --node-events event).
enum class AllocationCause { Start, Complete, Preempt, NodeDown, Resize };

// One occupancy change, for invariant checks and allocations.csv: at `time_s`
// job `job` took (taken=true) or gave back `milli` of each of the GPUs
// (kGpuMilli: whole GPUs; less when a sharing policy packed it,
// docs/HETEROGENEITY.md). A resize is a release then a take, both Resize.
struct AllocationEvent {
  double time_s;
  JobIndex job;
  bool taken;
  std::vector<GpuId> gpus;
  int milli = kGpuMilli;
  AllocationCause cause = AllocationCause::Start;
};

struct ReplayOptions {
  // Multi-node jobs run as this many macro-iterations (k = ceil(iters/M)
  // iterations each), so cost does not grow with iteration counts. 0 means
  // k = 1 (every iteration simulated); negative is invalid. The default is
  // chosen in docs/PERFORMANCE.md, "Macro-iterations: fidelity vs cost":
  // with shorten_macro_when_contended, M = 100 keeps every job's JCT within
  // 1% of per-iteration simulation (sim/tests/macro_iteration_fidelity_test).
  int macro_iterations = 100;
  // Adaptive macro-iterations: a macro-iteration that a multi-node job starts
  // while it shares a link (NIC, uplink) with another running job lasts at
  // most contended_macro_s of idle-network time (at least one iteration),
  // whatever M is; alone on its links a ring is exact for any k. 0 = single
  // iterations while contended. See docs/PERFORMANCE_HISTORY.md,
  // "Per-iteration while contended; default M = 100 (issue 4)".
  bool shorten_macro_when_contended = true;
  double contended_macro_s = 0;
  // How multi-node data-parallel ring jobs are timed (docs/PERFORMANCE.md,
  // "Ring engines"). Fluid rings are the default since issue 21: every
  // multi-node ring job is timed analytically, and rings that share links
  // slow each other by a fluid model of their comm phases
  // (sim/src/fluid_contention.hpp), so a replay's cost does not follow how
  // long its rings are contended nor their iteration counts. Its error
  // against per-iteration simulation is stated in docs/PERFORMANCE.md ("Fluid
  // rings"). Parameter-server and layout jobs still run as actors and do not
  // contend with fluid rings.
  //
  // fluid_rings = false selects the actor engines (`--actor-rings`): one
  // SimGrid actor per GPU, simulated iteration by iteration while contended
  // (the reference of the fidelity tests). That can take hours on traces
  // with many long multi-node jobs.
  bool fluid_rings = true;
  // Quiet rings (actor engine only: fluid_rings = false, with
  // shorten_macro_when_contended and M > 0): a multi-node ring job alone on
  // its links is timed analytically (exact there) and simulated with actors
  // only while another job shares one of its links, in contended
  // macro-iterations of at most contended_macro_s. After a contention change
  // the ring resumes from an estimated phase, so JCTs drift from
  // per-iteration simulation (docs/PERFORMANCE.md, "Quiet rings").
  bool quiet_rings = false;
  // Heterogeneous jobs (VirtualFlow): a started job whose GPUs span several
  // types gets its virtual nodes from the split solver (faster types run
  // more), replacing the policy's vn_per_gpu. Off: the policy's split is
  // used as given (docs/HETEROGENEITY.md).
  bool heterogeneous_split = false;
  // Jobs write a checkpoint every this many seconds of progress (the write
  // overlaps training). A preempted or revoked job keeps the work up to its
  // last checkpoint and pays a restore (restart delay + state / storage
  // bandwidth, ElasticitySpec) when it runs again. 0 = the Tiresias
  // convention: preemption is free and keeps every whole iteration
  // (docs/ELASTICITY.md).
  double checkpoint_interval_s = 0;
  // Node revocations and failures: explicit events, plus Poisson events at
  // these rates per node-hour (spot nodes only, all nodes), each taking a
  // node down for node_down_s. Drawn from `seed`.
  std::vector<NodeEvent> node_events;
  double revocation_rate_per_node_hour = 0;
  double failure_rate_per_node_hour = 0;
  double node_down_s = 600;
  unsigned long long seed = 1;
  // Gradient noise profiles for the work left after an adaptive-batch
  // change; nullptr = the built-in ones. `vnsim validate` gives the
  // executor's measured profiles (the run's noise.json), so that both
  // engines re-express the work the same way.
  const NoiseScaleCatalog* noise_profiles = nullptr;
  // Called at the end of every controller step (each arrival, completion,
  // policy round...), so it must be cheap: the CLI throttles what it draws.
  std::function<void(const ReplayProgress&)> progress;
  // When set, each allocation event goes here, in order, as it happens, and
  // ReplayResult::allocations stays empty: the CLI streams allocations.csv
  // to disk (the log of a run with millions of preemptions would otherwise
  // grow the memory without bound). Unset: the log is kept in the result.
  std::function<void(const AllocationEvent&)> allocation_sink;
};

struct ReplayResult {
  std::vector<JobRecord> jobs;               // same order as the input jobs
  std::vector<AllocationEvent> allocations;  // empty with ReplayOptions::allocation_sink
  double simulated_end_s = 0;
  double scheduler_wall_s = 0;  // wall time spent inside Policy::decide
  // PolicyDriver's DecisionCost: decide() calls, their mean active jobs
  // (queued + running handed to the call) and process CPU time inside them
  // (estimated from the calls timed).
  std::uint64_t scheduler_calls = 0;
  double scheduler_active_jobs_mean = 0;
  double scheduler_cpu_s = 0;
  std::uint64_t scheduler_cpu_measured_calls = 0;
  std::uint64_t scheduler_unchanged_calls = 0;  // calls told of no changed job
  double scheduler_unchanged_cpu_s = 0;
  std::uint64_t scheduler_idle_calls = 0;  // of those, the ones that decided nothing
  double scheduler_idle_cpu_s = 0;
  ResourceUsage usage;  // cost and energy per GPU type, revocations
};

// Runs the whole replay in this process. SimGrid allows one engine per
// process, so call this at most once per process.
ReplayResult run_replay(const Cluster& cluster, const GpuCatalog& gpu_catalog, const ModelCatalog& models,
                        const std::vector<JobSpec>& jobs, Policy& policy, const ReplayOptions& options);

}  // namespace vnsim
