// The steps between reading and replaying a trace (docs/TRACES.md,
// "Construction rules"), in one place for replay and convert.
#include "vnsim/traces/job_preparation.hpp"

#include <algorithm>
#include <cmath>

#include "vnsim/core/error.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/traces/work_assignment.hpp"

namespace vnsim {

FailedJobs failed_jobs_from_string(const std::string& s) {
  if (s == "run") return FailedJobs::Run;
  if (s == "drop") return FailedJobs::Drop;
  throw InputError("--failed-jobs: expected run or drop, got '" + s + "'");
}

void prepare_jobs(std::vector<JobSpec>& jobs, std::vector<TraceIssue>& skipped, const std::string& source,
                  const JobPreparation& prep, const Cluster* cluster) {
  check_trace_filter(prep.filter);
  if (prep.failed_jobs == FailedJobs::Drop) {
    std::vector<JobSpec> kept;
    kept.reserve(jobs.size());
    for (auto& job : jobs) {
      if (job.status == TraceStatus::Failed || job.status == TraceStatus::Killed)
        skipped.push_back(TraceIssue{
            source, 0, "job '" + job.id + "' dropped by --failed-jobs drop: status " + to_string(job.status),
            IssueKind::Filtered});
      else
        kept.push_back(std::move(job));
    }
    jobs = std::move(kept);
  }
  // Jobs whose work is defined only after assign_work (no duration, no
  // iterations yet) get the load scale on their iterations afterwards.
  std::vector<bool> scale_later(jobs.size(), false);
  const auto removed = apply_trace_filter(jobs, prep.filter, source);
  skipped.insert(skipped.end(), removed.begin(), removed.end());
  if (prep.filter.load_scale != 1.0)
    for (std::size_t i = 0; i < jobs.size(); ++i)
      scale_later[i] = jobs[i].trace_duration_s < 0 && jobs[i].iterations == 0;
  if (prep.model_rules) assign_models_by_rules(jobs, *prep.model_rules, prep.seed);
  if (cluster == nullptr) return;
  // A job that gives its iterations but no batch (JSONL `global_batch` 0)
  // trains at its model's default batch, as assign_work gives the others;
  // before the fit below, which needs the batch.
  fill_default_batches(jobs, ModelCatalog::builtin());
  // Before assign_work: a job's time per step depends on its virtual nodes.
  // A job that no V fits keeps its own and is rejected with the reason.
  for (auto& job : jobs)
    if (const auto v = virtual_nodes_to_fit(job, *cluster, GpuCatalog::builtin(), ModelCatalog::builtin());
        v && *v != job.effective_virtual_nodes())
      job.virtual_nodes = *v;
  assign_work(jobs, *cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), prep.seed);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (scale_later[i] && jobs[i].iterations > 0)
      jobs[i].iterations = std::max<std::int64_t>(
          1, std::llround(static_cast<double>(jobs[i].iterations) * prep.filter.load_scale));
}

}  // namespace vnsim
