#include "vnsim/real_exec/step_runner.hpp"

#include <limits>

#include "vnsim/real_exec/gradient_model.hpp"

namespace vnsim::real_exec {

StepTiming run_step(DataPlane& plane, const JobShape& shape, int rank, long long iteration) {
  plane.zero_grad();
  for (const SampleRange& r : rank_sample_ranges(iteration, shape.global_batch, shape.vn_per_rank, rank))
    plane.micro_batch(r.first, r.count,
                      shape.flops_fixed + shape.flops_per_sample * static_cast<double>(r.count));
  plane.allreduce_grad();
  plane.apply_update(shape.global_batch, shape.learning_rate);
  return plane.take_timing();
}

StepTiming step_span(GroupComm& comm, const StepTiming& mine) {
  // Neither member's own all-reduce time is the span: the first to arrive
  // also waits for the others, and the last to arrive finds part of the
  // exchange already done by them. Nanoseconds, so that one integer max
  // exchange carries both.
  long long v[2] = {static_cast<long long>(mine.compute_s * 1e9),
                    static_cast<long long>((mine.compute_s + mine.allreduce_s) * 1e9)};
  comm.allreduce_max(v, 2);
  StepTiming out = mine;
  out.compute_s = static_cast<double>(v[0]) * 1e-9;
  out.allreduce_s = static_cast<double>(v[1] - v[0]) * 1e-9;
  return out;
}

bool parameters_agree(GroupComm& comm, DataPlane& plane, std::uint64_t& checksum) {
  const std::vector<double> params = plane.read_params();
  checksum = parameter_checksum(params);
  // 63 bits of the hash; max over ranks of x and of (M - x) give max and min.
  constexpr long long kM = std::numeric_limits<long long>::max();
  const auto mine = static_cast<long long>(checksum >> 1);
  long long v[2] = {mine, kM - mine};
  comm.allreduce_max(v, 2);
  return v[0] == mine && kM - v[1] == mine;
}

LoopResult run_job_loop(GroupComm& comm, DataPlane& plane, const JobShape& shape, long long start_iteration,
                        long long total_iterations, long long last_checkpoint, const LoopHooks& hooks) {
  const bool leader = comm.rank() == 0;
  LoopResult out;
  long long last = last_checkpoint;  // every member tracks it; the leader writes the files
  long long it = start_iteration;
  for (; it < total_iterations; ++it) {
    const double t0 = hooks.clock();
    // One small exchange per step carries the leader's command and any
    // member's fault, so every member leaves the loop at the same step.
    long long control[2] = {leader ? static_cast<long long>(hooks.poll_command()) : 0,
                            hooks.fails_at(it) ? static_cast<long long>(comm.size() - comm.rank()) : 0};
    comm.allreduce_max(control, 2);
    if (control[1] > 0) {
      out.reason = LoopResult::Reason::Failed;
      out.failed_rank = comm.size() - static_cast<int>(control[1]);
      out.iterations_done = last;
      return out;
    }
    if (control[0] == static_cast<long long>(Command::Stop)) {
      out.reason = LoopResult::Reason::Stopped;
      break;
    }
    if (control[0] == static_cast<long long>(Command::Resize)) {
      out.reason = LoopResult::Reason::Resize;
      break;
    }
    IterationReport report;
    report.iteration = it;
    report.timing = run_step(plane, shape, comm.rank(), it);
    report.seconds = hooks.clock() - t0;  // the all-reduce ended the step on every member
    report.timing = step_span(comm, report.timing);
    if (leader) hooks.report(report);
    if (hooks.checkpoint_every > 0 && (it + 1) % hooks.checkpoint_every == 0 && it + 1 < total_iterations) {
      if (leader) hooks.checkpoint(it + 1, plane.read_params());
      last = it + 1;
    }
  }
  out.iterations_done = it;
  // Leaving a rank set (stop or resize) always checkpoints: a later restart
  // or a failure after the resize resumes from here.
  if (out.reason != LoopResult::Reason::Finished && leader) hooks.checkpoint(it, plane.read_params());
  out.params_consistent = parameters_agree(comm, plane, out.checksum);
  return out;
}

}  // namespace vnsim::real_exec
