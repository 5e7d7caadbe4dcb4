// vnexec run: rank 0 controls, the other ranks work.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "mpi_fleet.hpp"
#include "mpi_group_comm.hpp"
#include "realtime.hpp"
#include "step_allreduce_probe.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/staged_file.hpp"
#include "vnsim/core/text_file.hpp"
#include "vnsim/policies/vc_quota_policy.hpp"
#include "vnsim/real_exec/controller.hpp"
#include "vnsim/real_exec/resume.hpp"
#include "vnsim/real_exec/transport_probe.hpp"
#include "wire.hpp"
#include "worker.hpp"

namespace vnsim::real_exec::mpi {
namespace {

// Which process is which rank, so an operator (or a test) can find and kill
// a worker: RUN_DIR/ranks.json, rewritten by every attempt.
void write_rank_table(const std::filesystem::path& out, int world_rank, int world_size, int attempt) {
  constexpr int kHostChars = MPI_MAX_PROCESSOR_NAME;
  char host[kHostChars] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  long long pid = ::getpid();
  std::vector<long long> pids(static_cast<std::size_t>(world_size));
  std::vector<char> hosts(static_cast<std::size_t>(world_size) * kHostChars);
  MPI_Gather(&pid, 1, MPI_LONG_LONG, pids.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(host, kHostChars, MPI_CHAR, hosts.data(), kHostChars, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (world_rank != 0) return;
  nlohmann::ordered_json t;
  t["attempt"] = attempt;
  t["ranks"] = nlohmann::ordered_json::array();
  for (int r = 0; r < world_size; ++r) {
    const char* h = hosts.data() + static_cast<std::size_t>(r) * kHostChars;
    t["ranks"].push_back({{"rank", r},
                          {"role", r == 0 ? "controller" : "worker " + std::to_string(r - 1)},
                          {"pid", pids[static_cast<std::size_t>(r)]},
                          {"host", std::string(h, strnlen(h, kHostChars))}});
  }
  std::ofstream(out / "ranks.json") << t.dump(2) << "\n";
}

}  // namespace

int run_command(const Options& options, int world_rank, int world_size) {
  namespace fs = std::filesystem;
  Options o = options;
  const bool resuming = !o.resume.empty();
  if (resuming) load_resume_settings(o);
  // Every rank reads the inputs, so every rank fails the same way on bad ones.
  const Cluster cluster(load_cluster_spec(o.cluster));
  const int workers = world_size - 1;
  if (cluster.gpu_count() != workers)
    throw InputError("--cluster " + o.cluster + ": has " + std::to_string(cluster.gpu_count()) +
                     " GPUs but the run has " + std::to_string(workers) + " workers (mpirun -np " +
                     std::to_string(cluster.gpu_count() + 1) + " needed)");
  const std::vector<JobSpec> jobs = read_executor_trace(o.trace, o.time_scale);
  const ModelCatalog profile =
      o.profile.empty() ? ModelCatalog::builtin() : ModelCatalog::parse(read_text_file(o.profile), o.profile);
  for (const JobSpec& j : jobs)
    if (!ModelCatalog::builtin().find(j.model))
      throw InputError(o.trace + ": job '" + j.id + "': model '" + j.model +
                       "' is not in the built-in catalog");
  // Every rank parses the noise profiles, so a bad file fails everywhere.
  const std::optional<NoiseScaleCatalog> noise =
      o.noise.empty()
          ? std::nullopt
          : std::optional<NoiseScaleCatalog>(NoiseScaleCatalog::parse(read_text_file(o.noise), o.noise));
  // Every rank checks the quotas too; only the controller uses them.
  const std::optional<VcQuotas> quotas =
      o.vc_quotas.empty()
          ? std::nullopt
          : std::optional<VcQuotas>(vc_quotas_from_source(o.vc_quotas, jobs, cluster.gpu_count()));
  std::unique_ptr<Backend> backend = make_backend(o.backend);
  const fs::path out = o.out;
  const fs::path checkpoints = out / "checkpoints";

  PriorAttempt prior;
  if (world_rank == 0) {
    // jobs.csv and summary.json say a run finished: an earlier run's must not
    // stay beside this attempt's log if it fails or is killed. The folder
    // itself is the run's working folder (the log and checkpoints that
    // --resume needs), so it is not staged as a whole.
    for (const char* done : {"jobs.csv", "summary.json"}) fs::remove(out / done);
    // An earlier run's probe must not stand for this one's.
    if (!resuming) fs::remove(out / "transport.json");
    if (resuming) {
      prior = read_prior_attempt((out / "measurements.jsonl").string());
    } else {
      fs::create_directories(checkpoints);
    }
  }
  write_rank_table(out, world_rank, world_size, prior.attempts + 1);

  // The transport probe: the trace's models, in name order on every rank.
  // A resumed run keeps its first attempt's probe.
  const bool probing = !resuming && o.probe_repetitions > 0 && workers >= 2;
  std::vector<std::string> probe_models;
  {
    std::set<std::string> names;
    for (const JobSpec& j : jobs) names.insert(j.model);
    probe_models.assign(names.begin(), names.end());
  }
  const auto probe_once = [&] {
    std::vector<int> worker_ranks;
    for (int r = 1; r < world_size; ++r) worker_ranks.push_back(r);
    // 999: below every segment's communicator tag (worker.cpp).
    MpiGroupComm comm(create_group_comm(worker_ranks, 999), true);
    const std::vector<ProbePoint> points =
        probe_step_allreduce(comm, *backend, probe_models, o.scale, o.probe_repetitions);
    if (comm.rank() == 0) send_probe(points);
  };

  if (world_rank != 0) {
    backend->warm_up();           // before the barrier, so the run's clock starts after it
    MPI_Barrier(MPI_COMM_WORLD);  // the controller has created the run folder
    WorkerConfig c;
    c.backend = backend.get();
    c.jobs = &jobs;
    c.models = &ModelCatalog::builtin();
    c.scale = o.scale;
    c.checkpoint_dir = checkpoints.string();
    c.checkpoint_every = o.checkpoint_every;
    // From here to the shutdown message a worker meets only other workers
    // in collectives, and waits for the controller's messages sleeping.
    const RealtimeScope realtime(o.realtime, ("worker rank " + std::to_string(world_rank)).c_str());
    if (probing) probe_once();
    run_worker(c);
    if (probing) probe_once();
    return 0;
  }

  if (!resuming) {
    write_executor_trace((out / "trace.jsonl").string(), jobs);
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
    if (!o.noise.empty()) {
      fs::copy_file(o.noise, out / "noise.json", fs::copy_options::overwrite_existing);
      cfg["noise"] = "noise.json";
    }
    cfg["policy"] = o.policy;
    cfg["policy_params"] = o.policy_params;
    if (quotas) {
      // The quotas the run used, derived ones included, so that `vnsim
      // validate` and --resume schedule each VC within the same quota.
      StagedFile csv(out / "vc_quotas.csv");
      std::ofstream(csv.path()) << vc_quotas_csv(*quotas);
      csv.commit();
      cfg["vc_quotas"] = "vc_quotas.csv";
      cfg["vc_borrow"] = o.vc_borrow;
    }
    cfg["backend"] = o.backend;
    cfg["workers"] = workers;
    cfg["compute_scale"] = o.scale.flops_per_reference_second;
    cfg["gradient_fraction"] = o.scale.gradient_fraction;
    cfg["checkpoint_every"] = o.checkpoint_every;
    std::ofstream(out / "run_config.json") << cfg.dump(2) << "\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);

  TransportProbe probe;
  if (probing) {
    probe.workers = workers;
    probe.repetitions = o.probe_repetitions;
    for (const std::string& name : probe_models) {
      const ModelParams& model = ModelCatalog::builtin().at(name);
      probe.start.push_back(
          {name, static_cast<double>(emulated_parameter_count(model, o.scale) * sizeof(double)), 0});
    }
    probe.end = probe.start;
    receive_probe(probe.start);
  }

  std::unique_ptr<Policy> policy =
      quotas ? make_vc_quota_policy(
                   o.policy, [&o] { return make_policy(o.policy, o.policy_params); }, *quotas, o.vc_borrow)
             : make_policy(o.policy, o.policy_params);
  if (noise) policy->use_noise_profiles(*noise);
  // The run's clock (the trace's submit times) starts now, when jobs can
  // start: after the inputs, the run folder and the transport probe.
  MpiFleet fleet(workers, prior.last_t - wall_s());
  MeasurementLog log((out / "measurements.jsonl").string(), resuming);
  ControllerOptions copts;
  copts.checkpoint_every = o.checkpoint_every;
  copts.inject_failure = o.inject_failure;
  if (noise) copts.noise = &*noise;
  if (resuming) {
    // The killed attempt's running segments are lost past their last
    // checkpoint; say so in the log before anything runs again.
    log.write({{"event", "resume"}, {"t", prior.last_t}, {"attempt", prior.attempts + 1}});
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto it = prior.jobs.find(jobs[i].id);
      if (it == prior.jobs.end() || it->second.done) continue;
      PriorJob& p = it->second;
      const fs::path ckpt = checkpoint_path(checkpoints.string(), i);
      std::vector<double> params;
      if (fs::exists(ckpt)) p.checkpoint_iteration = read_checkpoint(ckpt.string(), params);
      if (!p.running) continue;
      log.write({{"event", "lost"},
                 {"t", prior.last_t},
                 {"job", jobs[i].id},
                 {"epoch", p.last_epoch},
                 {"iterations_seen", p.iterations_seen},
                 {"resume_iteration", p.checkpoint_iteration}});
      ++p.record.restarts;
    }
    copts.prior = prior.jobs;
  }
  Controller controller(cluster, GpuCatalog::builtin(), profile, jobs, *policy, fleet, log, copts);
  std::vector<JobRecord> records;
  {
    // One priority above the workers: the controller sleeps between
    // messages, and its decisions must not wait for a worker's time slice.
    const RealtimeScope realtime(o.realtime > 0 ? o.realtime + 1 : 0, "controller");
    records = controller.run();
    fleet.shutdown();
  }
  if (probing) {
    // What `vnsim validate` predicts the run's all-reduce from (and how far
    // the transport drifted while the jobs ran).
    receive_probe(probe.end);
    StagedFile transport(out / "transport.json");
    std::ofstream(transport.path()) << transport_probe_json(probe);
    transport.commit();
  }

  RunInfo info;
  info.policy = policy->name();
  info.cluster = cluster.spec().name;
  info.trace = o.trace;
  info.total_gpus = cluster.gpu_count();
  info.vnsim_version = "vnexec " + o.backend;
  // Written under temporary names and renamed, summary.json last, so both
  // appear whole and only when the run has finished.
  StagedFile jobs_csv(out / "jobs.csv"), summary_json(out / "summary.json");
  write_jobs_csv(jobs_csv.path().string(), records);
  write_summary_json(summary_json.path().string(), records, info);
  jobs_csv.commit();
  summary_json.commit();
  std::size_t completed = 0;
  for (const JobRecord& r : records) completed += r.state == FinalState::Completed;
  std::printf(
      "vnexec run: %zu jobs (%zu completed, %zu rejected) on %d %s workers in %.2f s; %zu worker(s) "
      "failed%s\n",
      records.size(), completed, records.size() - completed, workers, o.backend.c_str(), fleet.now_s(),
      controller.failed_gpus().size(), resuming ? " (resumed run)" : "");
  std::printf("outputs: %s/{jobs.csv,summary.json,measurements.jsonl,run_config.json,trace.jsonl}\n",
              out.string().c_str());
  return 0;
}

}  // namespace vnsim::real_exec::mpi
