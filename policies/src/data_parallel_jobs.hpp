#pragma once
// Pollux, Optimus, Sia and Gavel price every job with the data-parallel model
// catalog (ModelCatalog). A job they cannot price, a DP x TP x PP layout job
// or a model outside the catalog (the gpt-* transformers), is rejected with
// its reason instead of stopping the run with "unknown model".
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

// Why `policy` cannot run `spec`, or nullopt when it can.
std::optional<std::string> not_data_parallel_reason(const std::string& policy, const JobSpec& spec);

// When some queued jobs of `input` cannot run under `policy`: `input` without
// them, and a RejectJob with the reason for each. nullopt when every job can run.
std::optional<std::pair<SchedulerInput, std::vector<Decision>>> reject_non_data_parallel(
    const SchedulerInput& input, const std::string& policy);
// The same, skipping the jobs `runnable` (by job index) already marks and
// marking those found runnable: a job's spec never changes, and a round-based
// policy calls this on its whole queue at every event
// (docs/PERFORMANCE_HISTORY.md, "Ring engines: fluid rings by default (issue
// 21)", "Rounds with nothing changed").
std::optional<std::pair<SchedulerInput, std::vector<Decision>>> reject_non_data_parallel(
    const SchedulerInput& input, const std::string& policy, std::vector<char>& runnable);

}  // namespace vnsim
