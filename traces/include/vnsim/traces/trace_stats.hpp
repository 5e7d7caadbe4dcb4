#pragma once
// Statistics of a read trace, for `vnsim trace inspect` (docs/TRACES.md,
// "Tools"). Computed from the JobSpecs alone, so every format that read_trace
// supports gets the same statistics with no per-format code.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {

struct DurationSummary {
  std::size_t jobs = 0;  // jobs with a recorded duration (trace_duration_s >= 0)
  double p50_s = 0, p90_s = 0, p99_s = 0, mean_s = 0, max_s = 0;
};

struct ArrivalBin {
  double start_s = 0;  // from the first submission
  std::size_t jobs = 0;
};

struct TraceStats {
  std::string source;
  std::string format;
  std::size_t jobs = 0;
  std::size_t skipped_rows = 0;
  double span_s = 0;  // last submission - first submission
  double jobs_per_hour = 0;
  // GPUs per job: buckets 1, 2, 4, 8, >8 plus every exact count.
  std::vector<std::pair<std::string, std::size_t>> gpu_buckets;
  std::map<int, std::size_t> gpus_exact;
  double mean_gpus = 0;
  int max_gpus = 0;
  DurationSummary duration;
  std::map<std::string, std::size_t> status;     // "pass", "killed", "failed", "unknown"
  std::map<std::string, std::size_t> gpu_types;  // "(any)" for jobs without a constraint
  std::size_t vc_count = 0;
  std::vector<std::pair<std::string, std::size_t>> top_vcs;  // at most 10, most jobs first, ties by name
  std::size_t user_count = 0;
  double bin_s = 0;  // 86400 (per day) or 3600 (per hour)
  std::vector<ArrivalBin> arrivals;
};

// Percentile with linear interpolation between order statistics
// (numpy's default): sorted[(n - 1) p]. `sorted` must be ascending, non-empty.
double percentile_of_sorted(const std::vector<double>& sorted, double p);

// Arrivals are binned per day when the span exceeds two days, else per hour.
TraceStats compute_trace_stats(const std::vector<JobSpec>& jobs, std::size_t skipped_rows,
                               const std::string& source, const std::string& format);
TraceStats compute_trace_stats(const TraceReadResult& read, const std::string& source);

std::string trace_stats_text(const TraceStats& stats);
std::string trace_stats_json(const TraceStats& stats);

}  // namespace vnsim
