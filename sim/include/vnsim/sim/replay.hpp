#pragma once
// Trace replay on the SimGrid model of a cluster. This header exposes no
// SimGrid type: SimGrid stays inside sim/src.
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

struct ReplayOptions {
  // Multi-node jobs run as this many macro-iterations (k = ceil(iters/M)
  // iterations each), so cost does not grow with iteration counts. 0 means
  // k = 1 (every iteration simulated); negative is invalid. The default is
  // chosen in docs/PERFORMANCE.md, "Macro-iterations: fidelity vs cost".
  int macro_iterations = 10;
  // Called now and then with (jobs finished or rejected, jobs total).
  std::function<void(std::size_t, std::size_t)> progress;
};

// One occupancy change, for invariant checks: at `time_s` job `job` took
// (taken=true) or gave back the GPUs.
struct AllocationEvent {
  double time_s;
  JobIndex job;
  bool taken;
  std::vector<GpuId> gpus;
};

struct ReplayResult {
  std::vector<JobRecord> jobs;  // same order as the input jobs
  std::vector<AllocationEvent> allocations;
  double simulated_end_s = 0;
  double scheduler_wall_s = 0;  // wall time spent inside Policy::decide
};

// Runs the whole replay in this process. SimGrid allows one engine per
// process, so call this at most once per process.
ReplayResult run_replay(const Cluster& cluster, const GpuCatalog& gpu_catalog, const ModelCatalog& models,
                        const std::vector<JobSpec>& jobs, Policy& policy, const ReplayOptions& options);

}  // namespace vnsim
