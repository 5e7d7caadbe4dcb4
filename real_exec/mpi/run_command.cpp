// vnexec run: rank 0 controls, the other ranks work.
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "mpi_fleet.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/real_exec/controller.hpp"
#include "worker.hpp"

namespace vnsim::real_exec::mpi {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int run_command(const Options& o, int world_rank, int world_size) {
  namespace fs = std::filesystem;
  // Every rank reads the inputs, so every rank fails the same way on bad ones.
  const Cluster cluster(load_cluster_spec(o.cluster));
  const int workers = world_size - 1;
  if (cluster.gpu_count() != workers)
    throw InputError("--cluster " + o.cluster + ": has " + std::to_string(cluster.gpu_count()) +
                     " GPUs but the run has " + std::to_string(workers) + " workers (mpirun -np " +
                     std::to_string(cluster.gpu_count() + 1) + " needed)");
  const std::vector<JobSpec> jobs = read_executor_trace(o.trace, o.time_scale);
  const ModelCatalog profile =
      o.profile.empty() ? ModelCatalog::builtin() : ModelCatalog::parse(slurp(o.profile), o.profile);
  for (const JobSpec& j : jobs)
    if (!ModelCatalog::builtin().find(j.model))
      throw InputError(o.trace + ": job '" + j.id + "': model '" + j.model +
                       "' is not in the built-in catalog");
  std::unique_ptr<Backend> backend = make_backend(o.backend);
  const fs::path out = o.out;
  const fs::path checkpoints = out / "checkpoints";

  if (world_rank != 0) {
    MPI_Barrier(MPI_COMM_WORLD);  // the controller has created the run folder
    WorkerConfig c;
    c.backend = backend.get();
    c.jobs = &jobs;
    c.models = &ModelCatalog::builtin();
    c.scale = o.scale;
    c.checkpoint_dir = checkpoints.string();
    c.checkpoint_every = o.checkpoint_every;
    run_worker(c);
    return 0;
  }

  fs::create_directories(checkpoints);
  write_executor_trace((out / "trace.jsonl").string(), jobs);
  {
    // What `vnsim validate` needs to simulate the same run.
    nlohmann::ordered_json cfg;
    cfg["trace"] = "trace.jsonl";
    cfg["trace_source"] = o.trace;
    cfg["time_scale"] = o.time_scale;
    if (fs::exists(o.cluster)) {
      fs::copy_file(o.cluster, out / "cluster.json", fs::copy_options::overwrite_existing);
      cfg["cluster"] = "cluster.json";
    } else {
      cfg["cluster"] = o.cluster;  // a preset name
    }
    if (!o.profile.empty()) {
      fs::copy_file(o.profile, out / "profile.json", fs::copy_options::overwrite_existing);
      cfg["profile"] = "profile.json";
    }
    cfg["policy"] = o.policy;
    cfg["policy_params"] = o.policy_params;
    cfg["backend"] = o.backend;
    cfg["workers"] = workers;
    cfg["compute_scale"] = o.scale.flops_per_reference_second;
    cfg["gradient_fraction"] = o.scale.gradient_fraction;
    cfg["checkpoint_every"] = o.checkpoint_every;
    std::ofstream(out / "run_config.json") << cfg.dump(2) << "\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);

  std::unique_ptr<Policy> policy = make_policy(o.policy, o.policy_params);
  MpiFleet fleet(workers);
  MeasurementLog log((out / "measurements.jsonl").string());
  ControllerOptions copts;
  copts.checkpoint_every = o.checkpoint_every;
  copts.inject_failure = o.inject_failure;
  Controller controller(cluster, GpuCatalog::builtin(), profile, jobs, *policy, fleet, log, copts);
  const std::vector<JobRecord> records = controller.run();
  fleet.shutdown();

  RunInfo info;
  info.policy = policy->name();
  info.cluster = cluster.spec().name;
  info.trace = o.trace;
  info.total_gpus = cluster.gpu_count();
  info.vnsim_version = "vnexec " + o.backend;
  write_jobs_csv((out / "jobs.csv").string(), records);
  write_summary_json((out / "summary.json").string(), records, info);
  std::size_t completed = 0;
  for (const JobRecord& r : records) completed += r.state == FinalState::Completed;
  std::printf(
      "vnexec run: %zu jobs (%zu completed, %zu rejected) on %d %s workers in %.2f s; %zu worker(s) failed\n",
      records.size(), completed, records.size() - completed, workers, o.backend.c_str(), fleet.now_s(),
      controller.failed_gpus().size());
  std::printf("outputs: %s/{jobs.csv,summary.json,measurements.jsonl,run_config.json,trace.jsonl}\n",
              out.string().c_str());
  return 0;
}

}  // namespace vnsim::real_exec::mpi
