#pragma once
// The comparison behind `vnsim validate`: what vnexec measured
// (measurements.jsonl) against what the simulator predicts for the same
// trace, testbed spec, profile and policy (docs/REAL_EXEC.md, "Validation").
// No SimGrid here: the caller runs the replay and passes its job records.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_record.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim::real_exec {

// Relative errors |predicted - measured| / measured over pairs with a
// positive measurement.
struct ErrorStats {
  std::size_t count = 0;
  double mape = 0;  // mean absolute relative error
  double p90 = 0;   // 90th percentile (nearest rank)
  double max = 0;
  double mean_signed = 0;  // mean (predicted - measured) / measured: > 0 the simulator is pessimistic
};
ErrorStats relative_errors(const std::vector<std::pair<double, double>>& predicted_measured);

// One term (step, compute or all-reduce) per run segment (job, epoch): the
// model predicts one value per segment, so it is compared with the segment's
// median measured step. `noise_floor_mape` is the per-step MAPE that
// predicting each segment's own measured median would get: the step-to-step
// variation that no per-placement model removes, the floor under the
// per-step MAPE (on the CPU testbed the all-reduce's was 26%,
// docs/VALIDATION.md).
struct SegmentStats {
  std::size_t segments = 0;
  double median_mape = 0;       // mean over segments of |predicted - median| / median
  double median_max = 0;        // the worst segment's
  double noise_floor_mape = 0;  // over the steps, |measured - segment median| / measured
};
using SegmentKey = std::pair<std::string, int>;  // (job, epoch)
// Pairs (predicted, measured) grouped by segment; non-positive measurements
// are left out, as in relative_errors.
SegmentStats segment_errors(const std::map<SegmentKey, std::vector<std::pair<double, double>>>& by_segment);

// What measurements.jsonl says (format in docs/REAL_EXEC.md).
struct MeasuredSegment {  // one run segment of a job: its rank set and split
  std::vector<GpuId> gpus;
  std::vector<int> vn_per_gpu;
  int global_batch = 0;
};
struct MeasuredIteration {
  std::string job;
  int epoch = 0;
  long long iteration = 0;
  double seconds = 0;
  double compute_s = 0;
  double allreduce_s = 0;
};
struct MeasuredRun {
  std::map<std::pair<std::string, int>, MeasuredSegment> segments;  // (job, epoch)
  std::vector<MeasuredIteration> iterations;
  std::map<std::string, double> submit_s, finish_s;
};
// Throws InputError naming the file, line and field on malformed input.
MeasuredRun read_measurement_log(const std::string& path);

// One compared sample, kept for the plots of the validation notebook.
struct IterationSample {
  std::string job;
  int epoch = 0;
  long long iteration = 0;
  double predicted_s = 0, measured_s = 0;
  double predicted_compute_s = 0, measured_compute_s = 0;
  double predicted_allreduce_s = 0, measured_allreduce_s = 0;  // 0 on one rank
};
struct JobSample {
  std::string job;
  double predicted_jct_s = 0, measured_jct_s = 0;
};

// The samples as CSV (header line first), for the notebook.
void write_iteration_csv(const std::string& path, const std::vector<IterationSample>& samples);
void write_job_csv(const std::string& path, const std::vector<JobSample>& samples);

struct ValidationReport {
  ErrorStats iteration;  // step time vs the analytic iteration model of the segment's placement
  ErrorStats compute;    // slowest rank's compute vs the model's compute term
  ErrorStats allreduce;  // leader's all-reduce vs the model's ring all-reduce term
  ErrorStats jct;        // job completion time vs the simulated replay
  SegmentStats iteration_segments, compute_segments, allreduce_segments;
  double measured_makespan_s = 0;
  double predicted_makespan_s = 0;
  // Mean JCT over the jobs completed in both (the policy-level number).
  double measured_mean_jct_s = 0;
  double predicted_mean_jct_s = 0;
  std::size_t jobs_compared = 0;
  std::vector<IterationSample> iterations;  // in log order
  std::vector<JobSample> jobs;              // in the replay's record order
  double mean_jct_error() const;
  double makespan_error() const;
  nlohmann::ordered_json to_json() const;  // the statistics, not the samples
};

// `predicted` are the simulator's records for the same jobs (matched by id).
// `skip_first` iterations of every segment are left out of the per-iteration
// statistics (warm-up: first touch of buffers, communicator set-up).
ValidationReport compare_run(const MeasuredRun& measured, const std::vector<JobRecord>& predicted,
                             const Topology& topology, const GpuCatalog& gpus, const ModelCatalog& models,
                             const std::map<std::string, std::string>& model_of_job, int skip_first = 1);

}  // namespace vnsim::real_exec
