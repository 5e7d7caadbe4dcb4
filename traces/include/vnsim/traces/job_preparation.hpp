#pragma once
// The steps between reading a trace and replaying or converting it, shared by
// `vnsim replay` and `vnsim trace convert` (docs/TRACES.md, "Construction
// rules"): failed-job rule, filters, model rules, duration to work.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/model_rules.hpp"
#include "vnsim/traces/trace.hpp"
#include "vnsim/traces/trace_filters.hpp"

namespace vnsim {

// What a Killed or Failed job means for replay: it runs for its recorded
// time (Run), or it is dropped and listed among the skipped rows (Drop).
enum class FailedJobs { Run, Drop };
FailedJobs failed_jobs_from_string(const std::string& s);  // run|drop

struct JobPreparation {
  std::uint64_t seed = 1;
  FailedJobs failed_jobs = FailedJobs::Run;
  TraceFilter filter;
  std::optional<ModelRules> model_rules;  // none: assign_work's built-in Pollux-like rule
};

// In this order: drop killed/failed jobs (FailedJobs::Drop), apply the
// filter, give models by the rule file, then, when `cluster` is given,
// assign_work(seed) on it. Every removed job is appended to `skipped`.
void prepare_jobs(std::vector<JobSpec>& jobs, std::vector<TraceIssue>& skipped, const std::string& source,
                  const JobPreparation& prep, const Cluster* cluster);

}  // namespace vnsim
