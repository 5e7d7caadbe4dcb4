// vnexec calibrate: measures the testbed's workers (compute per micro-batch
// against local batch, per model; all-reduce time and point-to-point
// latency between them) and writes a cluster spec and a model profile that
// `vnsim replay` / `vnsim validate` read.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "commands.hpp"
#include "mpi_group_comm.hpp"
#include "realtime.hpp"
#include "step_allreduce_probe.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/staged_file.hpp"
#include "vnsim/real_exec/calibration.hpp"
#include "vnsim/real_exec/gradient_noise.hpp"
#include "vnsim/real_exec/step_runner.hpp"
#include "wire.hpp"

namespace vnsim::real_exec::mpi {
namespace {

void write_whole(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw InputError(path.string() + ": cannot write");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Local batches to time: the catalog's range around the default micro-batch,
// wide enough that an elastic job's local batches (a global batch over 1 to
// N workers and virtual nodes) are interpolated, not extrapolated.
std::vector<long long> batch_points(const ModelParams& m) {
  std::set<long long> pts;
  for (double f : {0.125, 0.25, 0.5, 1.0, 2.0, 4.0}) {
    const auto b = static_cast<long long>(m.default_local_batch * f);
    pts.insert(std::clamp<long long>(b, m.min_local_batch, m.max_local_batch));
  }
  return {pts.begin(), pts.end()};
}

// Mean over workers of each worker's median: all workers compute at once,
// as they do when the testbed is busy.
double timed_across(GroupComm& comm, int reps, const std::function<double()>& once) {
  std::vector<double> times;
  once();  // warm-up
  for (int r = 0; r < reps; ++r) times.push_back(once());
  double m = median(times);
  comm.allreduce_sum(&m, 1);
  return m / comm.size();
}

}  // namespace

int calibrate_command(const Options& o, int world_rank, int world_size) {
  namespace fs = std::filesystem;
  for (const auto& name : o.models) ModelCatalog::builtin().at(name);  // unknown model: InputError
  std::unique_ptr<Backend> backend = make_backend(o.backend);
  MPI_Comm workers_comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0 ? MPI_UNDEFINED : 0, world_rank, &workers_comm);
  if (world_rank == 0) {
    // The controller rank takes no part; it waits without spinning.
    const std::vector<long long> done = receive_longs(1, kTagCalibrate);
    return static_cast<int>(done.at(0));
  }
  MpiGroupComm comm(workers_comm, true);
  backend->warm_up();  // as a run's workers do before their first job
  // The workers meet only each other from here on; the controller sleeps.
  const RealtimeScope realtime(o.realtime, ("worker rank " + std::to_string(world_rank)).c_str());
  const int workers = world_size - 1;
  nlohmann::ordered_json raw;
  raw["workers"] = workers;
  raw["backend"] = o.backend;
  raw["compute_scale"] = o.scale.flops_per_reference_second;
  raw["gradient_fraction"] = o.scale.gradient_fraction;
  raw["realtime_priority"] = realtime.active() ? o.realtime : 0;  // of this worker (rank 1)

  // Point-to-point latency between worker 0 and worker 1: half a ping-pong.
  double one_way_s = 0;
  if (workers >= 2) {
    double word = 0;
    std::vector<double> rtts;
    for (int r = 0; r < 200; ++r) {
      const double t0 = MPI_Wtime();
      if (comm.rank() == 0) {
        MPI_Send(&word, 1, MPI_DOUBLE, 1, 0, comm.handle());
        MPI_Recv(&word, 1, MPI_DOUBLE, 1, 0, comm.handle(), MPI_STATUS_IGNORE);
      } else if (comm.rank() == 1) {
        MPI_Recv(&word, 1, MPI_DOUBLE, 0, 0, comm.handle(), MPI_STATUS_IGNORE);
        MPI_Send(&word, 1, MPI_DOUBLE, 0, 0, comm.handle());
      }
      rtts.push_back(MPI_Wtime() - t0);
    }
    one_way_s = median(rtts) / 2;
    comm.broadcast(&one_way_s, sizeof one_way_s, 0);
  }
  raw["one_way_latency_s"] = one_way_s;

  // What each segment of a job costs its workers besides its steps
  // (worker.cpp): a communicator over its ranks and a data plane opened,
  // and both closed when it ends (the cuda backend hands its teardown to a
  // thread of its own). The simulator's 1 s default is a guess for real
  // clusters; here it takes milliseconds to tens of milliseconds, and every
  // start's and resize's prediction depends on it.
  std::size_t largest = 1;
  for (const auto& name : o.models)
    largest = std::max(largest, emulated_parameter_count(ModelCatalog::builtin().at(name), o.scale));
  std::vector<int> worker_ranks;
  for (int r = 1; r < world_size; ++r) worker_ranks.push_back(r);
  int setup_tag = kTagCalibrate + 1;
  const auto segment_cycle_s = [&](std::size_t parameters) {
    return timed_across(comm, o.repetitions, [&] {
      const double t0 = MPI_Wtime();
      {
        MpiGroupComm segment(create_group_comm(worker_ranks, setup_tag++), true);
        backend->open(segment, parameters).reset();
      }
      return MPI_Wtime() - t0;
    });
  };
  const double setup_s = segment_cycle_s(largest);
  raw["communicator_setup_s"] = setup_s;

  std::vector<CalibratedModel> calibrated;
  std::vector<std::pair<double, double>> in_steps;  // (gradient bytes, all-reduce span in a step)
  std::vector<MeasuredNoise> noise;
  for (const auto& name : o.models) {
    const ModelParams& model = ModelCatalog::builtin().at(name);
    const std::size_t params = emulated_parameter_count(model, o.scale);
    CalibratedModel c;
    c.base = model;
    // Every start of this model's jobs (the first one included) pays it
    // before its first step: the simulator charges it as the model's start
    // charge (docs/MODELS.md).
    c.start_charge_s = segment_cycle_s(params);
    std::unique_ptr<DataPlane> plane = backend->open(comm, params);
    c.gradient_bytes = static_cast<double>(params * sizeof(double));
    std::vector<std::pair<double, double>> points;
    nlohmann::ordered_json model_raw;
    // Micro-batches of m samples inside whole steps on every worker (zero
    // the gradient, compute, all-reduce, update), as a run executes them:
    // timed back to back without the rest of the step, a small model's
    // micro-batch ran with its data still in cache and was 5-11% faster
    // than in the runs (docs/VALIDATION.md).
    const std::vector<long long> batches = batch_points(model);
    std::vector<JobShape> shapes;
    for (long long m : batches)
      shapes.push_back(emulated_shape(model, o.scale, m * workers,
                                      std::vector<int>(static_cast<std::size_t>(workers), 1)));
    long long iteration = 0;
    std::vector<std::function<double()>> steps;
    for (const JobShape& shape : shapes)
      steps.emplace_back([&comm, &plane, &shape, &iteration] {
        long long control[2] = {0, 0};
        comm.allreduce_max(control, 2);
        return run_step(*plane, shape, comm.rank(), iteration++).compute_s;
      });
    int rounds = 0;
    std::vector<double> medians = timed_rounds(comm, o.repetitions, kMinCalibrationSpanS, steps, &rounds);
    // Mean over workers of each worker's median: all workers compute at
    // once, as they do when the testbed is busy.
    comm.allreduce_sum(medians.data(), medians.size());
    for (std::size_t i = 0; i < batches.size(); ++i) {
      const double t = medians[i] / comm.size();
      points.emplace_back(static_cast<double>(batches[i]), t);
      model_raw["micro_batch_s"][std::to_string(batches[i])] = t;
    }
    model_raw["micro_batch_rounds"] = rounds;
    c.compute = fit_line(points);
    c.points = static_cast<int>(points.size());
    {
      // What a step adds to its micro-batches (the update, the control
      // exchange) and how far apart the workers' computes fall, from whole
      // steps at the default local batch, timed as a run times them
      // (step_runner.cpp run_job_loop).
      const std::vector<StepSample> samples =
          time_whole_steps(comm, *plane, model, o.scale, std::max(20, 4 * o.repetitions));
      StepExtras extras = fit_step_extras(samples);
      // The leader's step is the one a run logs.
      comm.broadcast(&extras, sizeof extras, 0);
      c.step_overhead_s = extras.step_overhead_s;
      c.compute_jitter_s = extras.compute_jitter_s;
      model_raw["step_overhead_s"] = c.step_overhead_s;
      model_raw["compute_jitter_s"] = c.compute_jitter_s;
    }
    model_raw["gradient_bytes"] = c.gradient_bytes;
    model_raw["start_charge_s"] = c.start_charge_s;
    if (comm.rank() == 0) {
      // The gradient noise Pollux's goodput reads, on this backend's own
      // gradients: batches of M0 against batches of 16 M0 (16 M0 well above
      // the problem's noise scale, so |G|^2 is resolved; gradient_noise.hpp).
      const long long small = std::max(1, model.initial_batch);
      const GradientNoise n = measure_gradient_noise(
          [&](long long first, long long count) {
            plane->zero_grad();
            plane->micro_batch(first, count, 0.0);
            plane->take_timing();
            return plane->read_grad();
          },
          small, 16 * small, 8);
      noise.push_back({model, n});
      model_raw["noise_scale"] = n.noise_scale();
    }
    if (workers >= 2) {
      // The collective exactly as a run times it (step_runner.cpp): whole
      // steps of this model at its default local batch on every worker, the
      // gradient's span logged as a run logs it. The sweep below all-reduces
      // one buffer back to back, with no compute in between, and its line
      // missed the runs' times by up to 55% (docs/REAL_EXEC.md).
      in_steps.emplace_back(c.gradient_bytes,
                            time_step_allreduce(comm, *plane, model, o.scale, o.repetitions));
      model_raw["step_allreduce_s"] = in_steps.back().second;
    }
    raw["models"][name] = model_raw;
    calibrated.push_back(c);
  }

  TestbedLinks links;
  links.workers = workers;
  links.link_latency_s = testbed_link_latency_s(one_way_s);
  links.link_bandwidth_Bps = 100e9;  // unused with 1 worker
  if (workers >= 2) {
    // The transport the runs use (MpiGroupComm::allreduce_sum, MPI_Allreduce
    // of doubles: the shared-memory path on one machine) at message sizes
    // from 8 B to 8 MiB, timed as the executor logs a step's all-reduce
    // (step_runner.cpp): the members leave the same small control exchange
    // that starts every step, and the time is the span to the last member's
    // exit (the longest member's time).
    std::vector<std::pair<double, double>> transport;
    std::vector<double> buffer;
    for (std::size_t count = 1; count <= (std::size_t{1} << 20); count *= 4) {
      buffer.assign(count, 1.0);
      std::vector<double> times;
      for (int r = 0; r <= o.repetitions; ++r) {
        long long control[2] = {0, 0};
        comm.allreduce_max(control, 2);
        const double t0 = MPI_Wtime();
        comm.allreduce_sum(buffer.data(), buffer.size());
        auto span = static_cast<long long>((MPI_Wtime() - t0) * 1e9);
        comm.allreduce_max(&span, 1);
        if (r > 0) times.push_back(static_cast<double>(span) * 1e-9);  // r = 0 warms up
      }
      transport.emplace_back(static_cast<double>(count * sizeof(double)), median(times));
    }
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const CalibratedModel& c : calibrated) {
      lo = std::min(lo, c.gradient_bytes);
      hi = std::max(hi, c.gradient_bytes);
    }
    const AlphaBeta all = fit_alpha_beta(transport);
    // Through the in-step times of the models' gradients; one model (one
    // size) gives no slope, and then the sweep's sizes around its gradient.
    std::set<double> step_sizes;
    for (const auto& p : in_steps) step_sizes.insert(p.first);
    const AlphaBeta used =
        step_sizes.size() >= 2 ? fit_alpha_beta(in_steps) : fit_alpha_beta_over(transport, lo, hi);
    const RingFit ring = ring_from_alpha_beta(used, workers);
    links.link_bandwidth_Bps = ring.bandwidth_Bps;
    links.link_latency_s = testbed_link_latency_s(ring.hop_latency_s);
    const auto fit_json = [](const AlphaBeta& f) {
      return nlohmann::ordered_json{{"alpha_s", f.alpha_s},
                                    {"beta_s_per_byte", f.beta_s_per_byte},
                                    {"from_bytes", f.from_bytes},
                                    {"to_bytes", f.to_bytes},
                                    {"max_relative_error", f.max_relative_error}};
    };
    for (const auto& [bytes, seconds] : transport)
      raw["allreduce_transport"].push_back({{"bytes", bytes}, {"seconds", seconds}});
    raw["allreduce_fit_all_sizes"] = fit_json(all);
    raw["allreduce_fit_used"] = fit_json(used);
    raw["hop_latency_used_s"] = ring.hop_latency_s;
  }
  raw["fitted_link_bandwidth_Bps"] = links.link_bandwidth_Bps;
  links.communicator_setup_s = setup_s;

  if (comm.rank() == 0) {
    fs::create_directories(o.out);
    const std::string reference = GpuCatalog::builtin().reference();
    // Each file under a temporary name, all renamed into place once all are
    // written: a failed or killed calibration leaves an earlier one whole.
    StagedFile cluster_json(fs::path(o.out) / "cluster.json"), models_json(fs::path(o.out) / "models.json"),
        noise_json(fs::path(o.out) / "noise.json"), calibration_json(fs::path(o.out) / "calibration.json");
    write_whole(
        cluster_json.path(),
        testbed_cluster_spec_json(links, reference,
                                  "measured by vnexec calibrate (" + o.backend + " backend, " +
                                      std::to_string(workers) + " workers); each worker is a '" + reference +
                                      "' (the catalog's reference type) so the profile's times apply "
                                      "unscaled"));
    write_whole(models_json.path(), model_profile_json(calibrated, reference));
    write_whole(noise_json.path(), noise_profile_json(noise));
    write_whole(calibration_json.path(), raw.dump(2) + "\n");
    for (StagedFile* f : {&cluster_json, &models_json, &noise_json, &calibration_json}) f->commit();
    std::printf(
        "vnexec calibrate: %d workers, one-way latency %.1f us, fitted link bandwidth %.2f GB/s, "
        "segment open and teardown %.2f ms\n",
        workers, one_way_s * 1e6, links.link_bandwidth_Bps / 1e9, setup_s * 1e3);
    for (const CalibratedModel& c : calibrated)
      std::printf(
          "  %s: micro-batch %.4f s + %.3g s/sample (rmse %.4f s, %d points), step overhead %.1f us, compute "
          "jitter %.1f us, gradient %.0f bytes, start %.2f ms\n",
          c.base.name.c_str(), c.compute.intercept, c.compute.slope, c.compute.rmse, c.points,
          c.step_overhead_s * 1e6, c.compute_jitter_s * 1e6, c.gradient_bytes, c.start_charge_s * 1e3);
    for (const MeasuredNoise& m : noise)
      std::printf("  %s: gradient noise scale %.1f samples (|G|^2 %.4g, tr(Sigma) %.4g)\n",
                  m.model.name.c_str(), m.noise.noise_scale(), m.noise.grad_sqr, m.noise.trace_sigma);
    std::printf("outputs: %s/{cluster.json,models.json,noise.json,calibration.json}\n", o.out.c_str());
    const long long ok = 0;
    MPI_Send(&ok, 1, MPI_LONG_LONG, 0, kTagCalibrate, MPI_COMM_WORLD);
  }
  return 0;
}

}  // namespace vnsim::real_exec::mpi
