#pragma once
// Filters and rescaling applied to a read trace before replay or conversion
// (docs/TRACES.md, "Filters"). Every job a filter removes is reported, with
// its id and the filter that removed it: nothing disappears silently.
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {

enum class StatusFilter { Keep, DropFailed, DropKilledFailed };
StatusFilter status_filter_from_string(const std::string& s);  // keep|drop-failed|drop-killed-failed

struct TraceFilter {
  std::optional<double> from_s, to_s;  // keep from_s <= submit_s < to_s (seconds from the trace's start)
  std::vector<std::string> vcs;        // keep only these VCs (empty: all)
  std::vector<std::string> users;      // keep only these users (empty: all)
  StatusFilter status = StatusFilter::Keep;
  std::optional<int> min_gpus, max_gpus;
  double arrival_scale = 1.0;  // > 0: gaps between submissions are divided by it
  double load_scale = 1.0;     // > 0: recorded durations are multiplied by it

  bool removes_nothing() const;
};

// Validates the values (positive scales, from < to, min <= max); throws
// InputError naming the option.
void check_trace_filter(const TraceFilter& filter);

// Removes the jobs that fail a filter, then rebases submit times so the first
// kept job is at 0, divides them by arrival_scale and multiplies
// trace_duration_s by load_scale. Returns one TraceIssue per removed job,
// {source, 0, "job '<id>' removed by <filter>: <why>"} (line 0: the job's
// source line is not known after reading).
std::vector<TraceIssue> apply_trace_filter(std::vector<JobSpec>& jobs, const TraceFilter& filter,
                                           const std::string& source);

}  // namespace vnsim
