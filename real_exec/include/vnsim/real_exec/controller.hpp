#pragma once
// The controller (rank 0 in vnexec): replays a job list in executor time on
// the testbed's workers and keeps a JobRecord per job. The policy is driven
// by the same PolicyDriver as in the simulator (queue, arrivals and their
// feasibility, requeue, decide loop, timer); this class is its executor:
// it launches, stops and resizes the job segments on the fleet. Event order
// at one instant is the simulator's: completions, arrivals, policy.
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_record.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/policy_driver.hpp"
#include "vnsim/real_exec/measurement_log.hpp"
#include "vnsim/real_exec/resume.hpp"
#include "vnsim/real_exec/worker_fleet.hpp"

namespace vnsim::real_exec {

struct ControllerOptions {
  // Jobs restart from their last checkpoint after a failure; 0 = no periodic
  // checkpoints (a failed job restarts from iteration 0, never dropped).
  long long checkpoint_every = 0;
  // Fault injection, job id -> step: the job's last worker fails before that
  // step once (docs/REAL_EXEC.md, "Failures").
  std::map<std::string, long long> inject_failure;
  // A resumed run (`vnexec run --resume`): what the killed attempt did, by
  // job id. Done jobs keep their record; the others restart from
  // checkpoint_iteration with segment numbers after last_epoch.
  std::map<std::string, PriorJob> prior;
  // Gradient noise profiles for adaptive-batch changes (the work left at a
  // new batch); nullptr = the built-in ones, as the simulator's default.
  const NoiseScaleCatalog* noise = nullptr;
};

class Controller final : private PolicyExecutor {
 public:
  Controller(const Cluster& cluster, const GpuCatalog& gpu_catalog, const ModelCatalog& models,
             std::vector<JobSpec> jobs, Policy& policy, WorkerFleet& fleet, MeasurementLog& log,
             ControllerOptions options = {});
  ~Controller();
  // Runs until every job completed or was rejected; returns the records.
  std::vector<JobRecord> run();
  // Workers taken out of service after a failure.
  const std::vector<GpuId>& failed_gpus() const { return failed_gpus_; }

 private:
  using Phase = PolicyDriver::Phase;  // the driver's: Running includes a deferred start
  struct JobState {
    int epoch = -1;
    Placement placement;
    long long iterations_done = 0;  // confirmed (checkpointed or stopped)
    long long iterations_seen = 0;  // reported by the running segment
    double run_start_s = 0;
    double attained_gpu_s = 0;
    double iteration_s = -1;  // mean measured iteration time of the running segment
    double iteration_sum_s = 0;
    long long iteration_count = 0;
    int stopping_epoch = -1;         // stop sent for this epoch, Stopped not yet received
    std::optional<Launch> deferred;  // start waiting for the stop's checkpoint
    // Adaptive batch: iterations_done and total count steps at `batch`; the
    // policy's latest batch (next_batch) takes over at the next launch, when
    // the steps done at the old one are known.
    int batch = 0;
    int next_batch = 0;
    long long total = 0;
  };

  // PolicyExecutor: the driver's calls.
  JobProgress arrived(JobIndex job, double now) override;
  RunningJob start(const StartJob& d, double now) override;
  void preempt(JobIndex job, double now) override;
  void resize(const ResizeJob& d, double now) override;
  void rejected(JobIndex job, double now, const std::string& reason) override;
  void refresh_running(std::vector<RunningJob>& running, double now) override;
  bool will_change_by_itself() const override;
  std::string idle_reason(JobIndex job) const override;

  void handle(const FleetEvent& e);
  void finish_job(JobIndex job, double now, long long iterations);
  void requeue(JobIndex job);
  void note_stop_of(JobIndex job, double now);
  void launch(Launch l);
  // Re-expresses the job's work left at a new batch, as the simulator does
  // (JobBatches, sim/src/job_batches.hpp).
  void adopt_batch(JobIndex job, int new_batch);
  // The progress the driver sees: iterations_done in the simulator's terms,
  // spec iterations minus the steps left at the current batch.
  JobProgress progress_of(JobIndex job) const;
  // Workers still finishing a stopped segment's step; a start on them waits.
  bool draining(const std::vector<GpuId>& gpus) const;
  void drain(JobIndex job, const std::vector<GpuId>& gpus);
  void drained(JobIndex job, double now);
  bool all_done() const;

  const Cluster& cluster_;
  const GpuCatalog& gpu_catalog_;
  const ModelCatalog& models_;
  std::vector<JobSpec> jobs_;
  Policy& policy_;
  WorkerFleet& fleet_;
  MeasurementLog& log_;
  ControllerOptions options_;
  Topology topology_;
  PolicyDriver driver_;
  ClusterView& view_;  // the driver's
  std::vector<JobState> state_;
  std::vector<JobRecord> records_;
  std::vector<GpuId> failed_gpus_;
  std::map<GpuId, JobIndex> draining_;
};

}  // namespace vnsim::real_exec
