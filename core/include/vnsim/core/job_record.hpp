#pragma once
// JobRecord: what happened to one job, written as a row of jobs.csv. The
// simulator and the real executor both fill these, so both produce the same
// outputs (docs/OUTPUTS.md).
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"

namespace vnsim {

enum class FinalState { Completed, Rejected };
const char* to_string(FinalState s);

struct JobRecord {
  std::string id;
  double submit_s = 0;
  double start_s = -1;   // first start; -1 if never started
  double finish_s = -1;  // -1 if never finished
  int requested_gpus = 0;
  std::vector<GpuId> gpus;  // last allocation, sorted
  FinalState state = FinalState::Rejected;
  std::string reason;  // why rejected; "" when completed
  int restarts = 0;    // preemptions/resizes that restarted the job
  std::string model;
  long long iterations = 0;
  double gpu_seconds = 0;  // GPU-time held (attained service)
  double lost_work_s = 0;  // progress lost to preemptions/revocations since the last checkpoint
  double energy_j = 0;     // busy power of the GPUs held x time held
  double cost_usd = 0;     // GPU time held x its on-demand or spot price
  std::string vc;          // the job's virtual cluster (JobSpec::vc), "" if none
  int virtual_nodes = 0;   // V the job ran with (gradient accumulation); 0 = not recorded

  double wait_s() const { return start_s >= 0 ? start_s - submit_s : -1; }
  double jct_s() const { return finish_s >= 0 ? finish_s - submit_s : -1; }
};

// Cost and energy of the whole run, per GPU type (docs/OUTPUTS.md, summary.json
// "cost" and "energy"). Empty per_type: not computed, not written.
struct GpuTypeUsage {
  std::string type;
  int gpus = 0;
  double on_demand_busy_gpu_s = 0;  // held by jobs, on on-demand nodes
  double spot_busy_gpu_s = 0;       // held by jobs, on spot nodes
  double idle_gpu_s = 0;            // up and free during [0, makespan]
  double down_gpu_s = 0;            // revoked or failed during [0, makespan]
  double cost_usd = 0;              // busy GPU time x price
  double busy_energy_j = 0;
  double idle_energy_j = 0;
};
struct ResourceUsage {
  std::vector<GpuTypeUsage> per_type;
  long long node_events = 0;  // revocations and failures that happened
  long long jobs_revoked = 0;
  double lost_work_s = 0;
};

struct RunInfo {  // facts about the run itself, for summary.json
  std::string policy;
  std::string cluster;
  std::string trace;
  unsigned long long seed = 0;
  std::string model_calibration;  // --model-calibration name; "" = none (not written)
  double wall_s = 0;
  double peak_rss_mb = 0;
  double scheduler_wall_s = 0;
  // decide() calls, their mean active jobs (queued + running) and process
  // CPU time inside them (PolicyDriver's DecisionCost).
  unsigned long long scheduler_calls = 0;
  double scheduler_active_jobs_mean = 0;
  double scheduler_cpu_s = 0;
  unsigned long long scheduler_cpu_measured_calls = 0;  // the calls whose CPU time was read
  unsigned long long scheduler_unchanged_calls = 0;     // the calls told of no changed job
  double scheduler_unchanged_cpu_s = 0;
  unsigned long long scheduler_idle_calls = 0;  // of those, the ones that decided nothing
  double scheduler_idle_cpu_s = 0;
  int total_gpus = 0;
  std::string simgrid_version;  // filled by the caller (core never includes SimGrid)
  std::string vnsim_version;    // filled by the caller (the CLI knows its build version)
  ResourceUsage usage;          // from the replay; written to summary.json when not empty
};

// jobs.csv: one row per job, Batsim column names where the meaning matches.
void write_jobs_csv(const std::string& path, const std::vector<JobRecord>& jobs);

// The cell formats of jobs.csv, for the other CSV outputs: RFC 4180 quoting
// (always, or only when needed), Batsim's interval set ("0-3 7"), and seconds
// with microsecond resolution ("%.6f", never "-0.000000").
std::string csv_field(const std::string& s, bool always = false);
std::string interval_set(std::vector<GpuId> ids);
std::string fixed6(double v, const std::string& what);
// summary.json: JCT statistics, makespan, utilisation, counts, run facts.
void write_summary_json(const std::string& path, const std::vector<JobRecord>& jobs, const RunInfo& info);
// run.json: the facts that differ from run to run (wall time, peak RSS,
// scheduler time), kept out of summary.json so that file is byte-for-byte
// reproducible.
void write_run_json(const std::string& path, const RunInfo& info);

}  // namespace vnsim
