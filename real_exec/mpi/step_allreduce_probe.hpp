#pragma once
// Timing the gradient all-reduce exactly as a run logs it, shared by
// `vnexec calibrate` (the calibration's in-step line) and `vnexec run`'s
// transport probe (vnsim/real_exec/transport_probe.hpp).
#include <functional>
#include <string>
#include <vector>

#include "vnsim/core/model_catalog.hpp"
#include "vnsim/real_exec/data_plane.hpp"
#include "vnsim/real_exec/group_comm.hpp"
#include "vnsim/real_exec/transport_probe.hpp"
#include "vnsim/real_exec/workload.hpp"

namespace vnsim::real_exec::mpi {

// One whole step of `shape` on every member of `comm`, started by the small
// control exchange that starts a run's step and timed as a run logs it
// (step_runner.cpp run_job_loop, step_span). Every member calls it; the
// sample agrees on every member except `seconds`, each member's own step.
StepSample time_one_step(GroupComm& comm, DataPlane& plane, const JobShape& shape, long long iteration);

// A step of `model` at its default local batch on every member of `comm`
// (one virtual node each).
JobShape default_step_shape(const ModelParams& model, const EmulationScale& scale, int members);

// `steps` such steps, after one warm-up step.
std::vector<StepSample> time_whole_steps(GroupComm& comm, DataPlane& plane, const ModelParams& model,
                                         const EmulationScale& scale, int steps);

// The median all-reduce span of time_whole_steps over `repetitions` steps.
// Every member calls it and gets the same value.
double time_step_allreduce(GroupComm& comm, DataPlane& plane, const ModelParams& model,
                           const EmulationScale& scale, int repetitions);

// Each of `steps` (collectives every member runs in the same order) timed in
// interleaved rounds (interleaved_medians): one timed warm-up round, then
// the rounds calibration_rounds asks for from the slowest member's warm-up,
// so every member runs the same. This member's medians; `rounds` gets the
// count when given.
std::vector<double> timed_rounds(GroupComm& comm, int repetitions, double min_span_s,
                                 const std::vector<std::function<double()>>& steps, int* rounds = nullptr);

// The all-reduce span of each of `models` (catalog names) in whole steps at
// its default local batch, each on a data plane of its own emulated
// gradient: the median over timed_rounds of at least `repetitions` rounds
// spanning kProbeSpanS, one step of each model per round, so that a stall
// of the machine costs each model a sample, not its whole probe. Every
// member gets the same values.
constexpr double kProbeSpanS = 0.2;
std::vector<ProbePoint> probe_step_allreduce(GroupComm& comm, Backend& backend,
                                             const std::vector<std::string>& models,
                                             const EmulationScale& scale, int repetitions);

// The probe's seconds from the first worker to the controller (rank 0) and
// back into `points` there (whose models and bytes the controller knows).
void send_probe(const std::vector<ProbePoint>& points);
void receive_probe(std::vector<ProbePoint>& points);

}  // namespace vnsim::real_exec::mpi
