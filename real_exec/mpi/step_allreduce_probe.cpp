#include "step_allreduce_probe.hpp"

#include <mpi.h>

#include <algorithm>

#include "vnsim/real_exec/step_runner.hpp"
#include "wire.hpp"

namespace vnsim::real_exec::mpi {

double time_step_allreduce(GroupComm& comm, DataPlane& plane, const ModelParams& model,
                           const EmulationScale& scale, int repetitions) {
  const int members = comm.size();
  const JobShape shape = emulated_shape(model, scale, model.default_local_batch * members,
                                        std::vector<int>(static_cast<std::size_t>(members), 1));
  std::vector<double> spans;
  for (int r = 0; r <= repetitions; ++r) {
    // The small control exchange that starts every step of a run.
    long long control[2] = {0, 0};
    comm.allreduce_max(control, 2);
    const StepTiming t = step_span(comm, run_step(plane, shape, comm.rank(), r));
    if (r > 0) spans.push_back(t.allreduce_s);  // r = 0 warms up
  }
  std::sort(spans.begin(), spans.end());
  return spans[spans.size() / 2];
}

std::vector<ProbePoint> probe_step_allreduce(GroupComm& comm, Backend& backend,
                                             const std::vector<std::string>& models,
                                             const EmulationScale& scale, int repetitions) {
  std::vector<ProbePoint> points;
  for (const std::string& name : models) {
    const ModelParams& model = ModelCatalog::builtin().at(name);
    const std::size_t params = emulated_parameter_count(model, scale);
    const std::unique_ptr<DataPlane> plane = backend.open(comm, params);
    points.push_back({name, static_cast<double>(params * sizeof(double)),
                      time_step_allreduce(comm, *plane, model, scale, repetitions)});
  }
  return points;
}

void send_probe(const std::vector<ProbePoint>& points) {
  std::vector<long long> ns;
  for (const ProbePoint& p : points) ns.push_back(static_cast<long long>(p.seconds * 1e9));
  MPI_Send(ns.data(), static_cast<int>(ns.size()), MPI_LONG_LONG, 0, kTagProbe, MPI_COMM_WORLD);
}

void receive_probe(std::vector<ProbePoint>& points) {
  const std::vector<long long> ns = receive_longs(MPI_ANY_SOURCE, kTagProbe);
  for (std::size_t i = 0; i < points.size() && i < ns.size(); ++i)
    points[i].seconds = static_cast<double>(ns[i]) * 1e-9;
}

}  // namespace vnsim::real_exec::mpi
