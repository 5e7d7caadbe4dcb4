// Trace filters (docs/TRACES.md, "Filters"). A removed job becomes a
// TraceIssue naming the job and the filter, never a silent drop.
#include "vnsim/traces/trace_filters.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

bool listed(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

// Why the filter removes `job`, or "" when it keeps it.
std::string why_removed(const JobSpec& job, const TraceFilter& f) {
  if (f.from_s && job.submit_s < *f.from_s) return "--from-s: submitted at " + num(job.submit_s) + " s";
  if (f.to_s && job.submit_s >= *f.to_s) return "--to-s: submitted at " + num(job.submit_s) + " s";
  if (!listed(f.vcs, job.vc)) return "--vc: VC '" + job.vc + "'";
  if (!listed(f.users, job.user)) return "--user: user '" + job.user + "'";
  if (f.status == StatusFilter::DropFailed && job.status == TraceStatus::Failed) return "--status: failed";
  if (f.status == StatusFilter::DropKilledFailed &&
      (job.status == TraceStatus::Failed || job.status == TraceStatus::Killed))
    return std::string("--status: ") + to_string(job.status);
  if (f.min_gpus && job.gpus < *f.min_gpus) return "--min-gpus: " + std::to_string(job.gpus) + " GPUs";
  if (f.max_gpus && job.gpus > *f.max_gpus) return "--max-gpus: " + std::to_string(job.gpus) + " GPUs";
  return {};
}

void check_positive(double x, const char* option) {
  if (!(x > 0) || !std::isfinite(x))
    throw InputError(std::string(option) + ": must be a positive number, got " + num(x));
}

}  // namespace

StatusFilter status_filter_from_string(const std::string& s) {
  if (s == "keep") return StatusFilter::Keep;
  if (s == "drop-failed") return StatusFilter::DropFailed;
  if (s == "drop-killed-failed") return StatusFilter::DropKilledFailed;
  throw InputError("--status: expected keep, drop-failed or drop-killed-failed, got '" + s + "'");
}

bool TraceFilter::removes_nothing() const {
  return !from_s && !to_s && vcs.empty() && users.empty() && status == StatusFilter::Keep && !min_gpus &&
         !max_gpus && arrival_scale == 1.0 && load_scale == 1.0;
}

void check_trace_filter(const TraceFilter& f) {
  check_positive(f.arrival_scale, "--arrival-scale");
  check_positive(f.load_scale, "--load-scale");
  if (f.from_s && f.to_s && !(*f.from_s < *f.to_s))
    throw InputError("--from-s " + num(*f.from_s) + " must be below --to-s " + num(*f.to_s));
  if (f.min_gpus && f.max_gpus && *f.min_gpus > *f.max_gpus)
    throw InputError("--min-gpus " + std::to_string(*f.min_gpus) + " is above --max-gpus " +
                     std::to_string(*f.max_gpus));
}

std::vector<TraceIssue> apply_trace_filter(std::vector<JobSpec>& jobs, const TraceFilter& filter,
                                           const std::string& source) {
  check_trace_filter(filter);
  std::vector<TraceIssue> removed;
  std::vector<JobSpec> kept;
  kept.reserve(jobs.size());
  for (auto& job : jobs) {
    const std::string why = why_removed(job, filter);
    if (why.empty())
      kept.push_back(std::move(job));
    else
      removed.push_back(TraceIssue{source, 0, "job '" + job.id + "' removed by " + why, IssueKind::Filtered});
  }
  jobs = std::move(kept);
  // Submit times stay sorted: filtering keeps order, and the rescaling is monotone.
  const double origin =
      jobs.empty() ? 0 : std::min_element(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) {
                           return a.submit_s < b.submit_s;
                         })->submit_s;
  for (auto& job : jobs) {
    job.submit_s = (job.submit_s - origin) / filter.arrival_scale;
    if (job.trace_duration_s >= 0)
      job.trace_duration_s *= filter.load_scale;
    else if (job.iterations > 0 && filter.load_scale != 1.0)
      job.iterations =
          std::max<std::int64_t>(1, std::llround(static_cast<double>(job.iterations) * filter.load_scale));
  }
  return removed;
}

}  // namespace vnsim
