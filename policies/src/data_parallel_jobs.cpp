#include "data_parallel_jobs.hpp"

#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

std::optional<std::string> not_data_parallel_reason(const std::string& policy, const JobSpec& spec) {
  if (spec.tp > 1 || spec.pp > 1)
    return policy + ": a DP x TP x PP layout job (tp " + std::to_string(spec.tp) + " x pp " +
           std::to_string(spec.pp) +
           ") cannot run; this policy prices data-parallel jobs of the model catalog only";
  if (!ModelCatalog::builtin().find(spec.model))
    return policy + ": model '" + spec.model +
           "' is not in the data-parallel model catalog, which this policy prices every job with";
  return std::nullopt;
}

std::optional<std::pair<SchedulerInput, std::vector<Decision>>> reject_non_data_parallel(
    const SchedulerInput& input, const std::string& policy, std::vector<char>& runnable) {
  // Look first, copy only when a job is rejected (almost never).
  bool any = false;
  for (const QueuedJob& q : input.queued) {
    if (q.index < runnable.size() && runnable[q.index] != 0) continue;
    if (not_data_parallel_reason(policy, *q.spec)) {
      any = true;
      continue;
    }
    if (runnable.size() <= q.index) runnable.resize(q.index + 1, 0);
    runnable[q.index] = 1;
  }
  if (!any) return std::nullopt;
  SchedulerInput kept;
  kept.now_s = input.now_s;
  kept.view = input.view;
  kept.running = input.running;
  std::vector<Decision> rejected;
  for (const QueuedJob& q : input.queued) {
    if (q.index < runnable.size() && runnable[q.index] != 0)
      kept.queued.push_back(q);
    else if (auto reason = not_data_parallel_reason(policy, *q.spec))
      rejected.emplace_back(std::in_place_type<RejectJob>, RejectJob{q.index, std::move(*reason)});
    else
      kept.queued.push_back(q);
  }
  return std::make_pair(std::move(kept), std::move(rejected));
}

std::optional<std::pair<SchedulerInput, std::vector<Decision>>> reject_non_data_parallel(
    const SchedulerInput& input, const std::string& policy) {
  // No memo to fill: a vector by job index here cost O(jobs in the trace)
  // per call (82,247 bytes to clear at every event late in Philly).
  bool any = false;
  for (const QueuedJob& q : input.queued) any = any || not_data_parallel_reason(policy, *q.spec).has_value();
  if (!any) return std::nullopt;
  std::vector<char> runnable;
  return reject_non_data_parallel(input, policy, runnable);
}

}  // namespace vnsim
