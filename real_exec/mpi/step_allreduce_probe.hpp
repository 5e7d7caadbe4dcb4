#pragma once
// Timing the gradient all-reduce exactly as a run logs it, shared by
// `vnexec calibrate` (the calibration's in-step line) and `vnexec run`'s
// transport probe (vnsim/real_exec/transport_probe.hpp).
#include <string>
#include <vector>

#include "vnsim/core/model_catalog.hpp"
#include "vnsim/real_exec/data_plane.hpp"
#include "vnsim/real_exec/group_comm.hpp"
#include "vnsim/real_exec/transport_probe.hpp"
#include "vnsim/real_exec/workload.hpp"

namespace vnsim::real_exec::mpi {

// Whole steps of `model` at its default local batch on every member of
// `comm` (one virtual node each), the gradient's span logged as a run logs
// it (step_span): the median over `repetitions` steps after one warm-up.
// Every member calls it and gets the same value.
double time_step_allreduce(GroupComm& comm, DataPlane& plane, const ModelParams& model,
                           const EmulationScale& scale, int repetitions);

// time_step_allreduce for each of `models` (catalog names), each on a data
// plane of its own emulated gradient.
std::vector<ProbePoint> probe_step_allreduce(GroupComm& comm, Backend& backend,
                                             const std::vector<std::string>& models,
                                             const EmulationScale& scale, int repetitions);

// The probe's seconds from the first worker to the controller (rank 0) and
// back into `points` there (whose models and bytes the controller knows).
void send_probe(const std::vector<ProbePoint>& points);
void receive_probe(std::vector<ProbePoint>& points);

}  // namespace vnsim::real_exec::mpi
