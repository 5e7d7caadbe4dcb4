#include "step_allreduce_probe.hpp"

#include <mpi.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "vnsim/real_exec/step_runner.hpp"
#include "wire.hpp"

namespace vnsim::real_exec::mpi {

StepSample time_one_step(GroupComm& comm, DataPlane& plane, const JobShape& shape, long long iteration) {
  const int members = comm.size();
  const double t0 = MPI_Wtime();
  long long control[2] = {0, 0};
  comm.allreduce_max(control, 2);
  const StepTiming mine = run_step(plane, shape, comm.rank(), iteration);
  StepSample sample;
  sample.seconds = MPI_Wtime() - t0;
  // Gathered after the step is timed, so it costs the next step nothing but
  // the wait its control exchange absorbs anyway.
  sample.member_compute_s.assign(static_cast<std::size_t>(members), 0.0);
  sample.member_compute_s[static_cast<std::size_t>(comm.rank())] = mine.compute_s;
  comm.allreduce_sum(sample.member_compute_s.data(), sample.member_compute_s.size());
  const StepTiming span = step_span(comm, mine);
  sample.slowest_compute_s = span.compute_s;
  sample.allreduce_span_s = span.allreduce_s;
  return sample;
}

JobShape default_step_shape(const ModelParams& model, const EmulationScale& scale, int members) {
  return emulated_shape(model, scale, model.default_local_batch * members,
                        std::vector<int>(static_cast<std::size_t>(members), 1));
}

std::vector<StepSample> time_whole_steps(GroupComm& comm, DataPlane& plane, const ModelParams& model,
                                         const EmulationScale& scale, int steps) {
  const JobShape shape = default_step_shape(model, scale, comm.size());
  time_one_step(comm, plane, shape, 0);  // warm-up
  std::vector<StepSample> samples;
  for (int r = 1; r <= steps; ++r) samples.push_back(time_one_step(comm, plane, shape, r));
  return samples;
}

double time_step_allreduce(GroupComm& comm, DataPlane& plane, const ModelParams& model,
                           const EmulationScale& scale, int repetitions) {
  std::vector<double> spans;
  for (const StepSample& s : time_whole_steps(comm, plane, model, scale, repetitions))
    spans.push_back(s.allreduce_span_s);
  std::sort(spans.begin(), spans.end());
  return spans[spans.size() / 2];
}

std::vector<double> timed_rounds(GroupComm& comm, int repetitions, double min_span_s,
                                 const std::vector<std::function<double()>>& steps, int* rounds) {
  const double warm_up_start = MPI_Wtime();
  for (const auto& step : steps) step();
  auto round_ns = static_cast<long long>((MPI_Wtime() - warm_up_start) * 1e9);
  comm.allreduce_max(&round_ns, 1);
  const int n = calibration_rounds(repetitions, static_cast<double>(round_ns) * 1e-9, min_span_s);
  if (rounds != nullptr) *rounds = n;
  return interleaved_medians(n, steps);
}

std::vector<ProbePoint> probe_step_allreduce(GroupComm& comm, Backend& backend,
                                             const std::vector<std::string>& models,
                                             const EmulationScale& scale, int repetitions) {
  struct Probed {
    std::string name;
    std::size_t params = 0;
    std::unique_ptr<DataPlane> plane;
    JobShape shape;
  };
  std::vector<Probed> probed;
  for (const std::string& name : models) {
    const ModelParams& model = ModelCatalog::builtin().at(name);
    const std::size_t params = emulated_parameter_count(model, scale);
    probed.push_back(
        {name, params, backend.open(comm, params), default_step_shape(model, scale, comm.size())});
  }
  long long iteration = 0;
  std::vector<std::function<double()>> steps;
  for (Probed& p : probed)
    steps.emplace_back([&comm, &p, &iteration] {
      return time_one_step(comm, *p.plane, p.shape, iteration++).allreduce_span_s;
    });
  const std::vector<double> spans = timed_rounds(comm, repetitions, kProbeSpanS, steps);
  std::vector<ProbePoint> points;
  for (std::size_t i = 0; i < probed.size(); ++i)
    points.push_back({probed[i].name, static_cast<double>(probed[i].params * sizeof(double)), spans[i]});
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
