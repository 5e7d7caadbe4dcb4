#pragma once
// What the controller asks of the workers, and what they report back. The
// MPI implementation lives in real_exec/mpi/; unit tests use a fake with a
// simulated clock.
#include <cstdint>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::real_exec {

enum class ParamSource { Fresh, Checkpoint, FromMember };

// One run segment of a job on a rank set. GpuId g is worker g (MPI rank g+1).
struct Launch {
  JobIndex job = 0;
  int epoch = 0;  // increases on every start, resize and restart of the job
  std::vector<GpuId> gpus;
  std::vector<int> vn_per_gpu;
  long long start_iteration = 0;
  int global_batch = 0;  // samples per step (a resize may change it)
  // The step the job ends at, counted at global_batch: the trace's
  // iterations until an adaptive-batch change re-expresses the work left
  // (core/goodput.hpp, steps_left_after_batch_change); 0 = the trace's.
  long long total_iterations = 0;
  ParamSource params = ParamSource::Fresh;
  int params_root = 0;               // FromMember: index into gpus of a member that holds them
  long long fail_at_iteration = -1;  // fault injection: the last member fails before this step
};

struct FleetEvent {
  // ResizeBoundary: the old rank set of an in-place resize stopped at a step
  // boundary (epoch = the old segment's); Resized: the new rank set holds
  // the parameters (epoch = the new segment's). Kept apart because a policy
  // may resize again before the first resize took effect.
  enum class Kind { Iteration, Finished, Stopped, Resized, Failed, ResizeBoundary };
  Kind kind = Kind::Iteration;
  JobIndex job = 0;
  int epoch = 0;
  double time_s = 0;        // executor time of the report
  long long iteration = 0;  // Iteration: its index; others: iterations done (Failed: at last checkpoint)
  double seconds = 0;       // Iteration: wall time of the step
  double compute_s = 0;     // Iteration: slowest rank's compute
  double allreduce_s = 0;   // Iteration: the collective, on the leader
  bool params_consistent = true;  // Finished/Stopped/Resized: all ranks held equal parameters
  std::uint64_t checksum = 0;     // Finished/Stopped/Resized: parameter checksum
  GpuId failed_gpu = -1;          // Failed: the worker that failed
};

class WorkerFleet {
 public:
  virtual ~WorkerFleet() = default;
  virtual double now_s() = 0;
  virtual void start(const Launch& launch) = 0;
  // Asks the job to stop after its current iteration and checkpoint; a
  // Stopped event follows.
  virtual void stop(JobIndex job, int epoch) = 0;
  // In-place resize: the members of `next` that ran epoch `epoch` keep their
  // state; the others join and receive parameters by broadcast. A Resized
  // event (epoch = next.epoch) follows.
  virtual void resize(JobIndex job, int epoch, const Launch& next) = 0;
  // Events that arrive before executor time `until_s` (infinity: wait for
  // at least one). May return early with events.
  virtual std::vector<FleetEvent> wait(double until_s) = 0;
  virtual void shutdown() = 0;
};

}  // namespace vnsim::real_exec
