#pragma once
// Executor logic shared by every backend: one training step of a job on one
// rank (its virtual nodes' micro-batches accumulated into the gradient
// buffer, then one collective, then the update), and the loop of steps with
// the controller's stop / resize commands and fault handling.
#include <cstdint>
#include <functional>
#include <vector>

#include "vnsim/real_exec/data_plane.hpp"
#include "vnsim/real_exec/group_comm.hpp"

namespace vnsim::real_exec {

// What one job's step costs and how it is split.
struct JobShape {
  long long global_batch = 0;
  std::vector<int> vn_per_rank;  // virtual nodes per member, in communicator order
  // Emulated compute of one micro-batch of m samples: flops_fixed + flops_per_sample * m.
  double flops_fixed = 0;
  double flops_per_sample = 0;
  double learning_rate = 0.01;
};

// Runs step `iteration` on this rank. Every member calls it with the same
// shape; the gradient collective is the only communication.
StepTiming run_step(DataPlane& plane, const JobShape& shape, int rank, long long iteration);

// What the log records of a step every member has timed, in one exchange:
// the slowest member's compute, and the gradient collective's span from the
// slowest compute to the last member's exit. Members start a step together
// (after the step's control exchange), so the span needs no shared clock.
StepTiming step_span(GroupComm& comm, const StepTiming& mine);

enum class Command : long long { None = 0, Stop = 1, Resize = 2 };

struct IterationReport {
  long long iteration = 0;
  double seconds = 0;  // whole step on the leader, control exchange included
  StepTiming timing;   // compute is the slowest member's
};

struct LoopHooks {
  // Leader only: the controller's pending command for this job.
  std::function<Command()> poll_command = [] { return Command::None; };
  // Leader only: after each step.
  std::function<void(const IterationReport&)> report = [](const IterationReport&) {};
  // This rank fails before step `iteration` (fault injection).
  std::function<bool(long long)> fails_at = [](long long) { return false; };
  // Leader only: save (iterations done, parameters).
  std::function<void(long long, const std::vector<double>&)> checkpoint = [](long long,
                                                                             const std::vector<double>&) {};
  long long checkpoint_every = 0;  // 0: only when stopped
  std::function<double()> clock;   // seconds, monotonic
};

struct LoopResult {
  enum class Reason { Finished, Stopped, Resize, Failed };
  Reason reason = Reason::Finished;
  long long iterations_done = 0;  // Failed: at the last checkpoint
  int failed_rank = -1;           // Failed: lowest failing member
  std::uint64_t checksum = 0;
  bool params_consistent = true;
};

// Steps [start, total) until done, stopped, resized or failed.
LoopResult run_job_loop(GroupComm& comm, DataPlane& plane, const JobShape& shape, long long start_iteration,
                        long long total_iterations, long long last_checkpoint, const LoopHooks& hooks);

// Whether every member holds bitwise-equal parameters, and their checksum.
bool parameters_agree(GroupComm& comm, DataPlane& plane, std::uint64_t& checksum);

}  // namespace vnsim::real_exec
