#pragma once
// The energy part of `vnsim check` (docs/OUTPUTS.md, "vnsim check"):
// summary.json's GPU energy against the GPU time that allocations.csv says
// was held, priced with the built-in GPU catalog's board powers.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace vnsim::cli {

// What the timeline gives the energy check.
struct HeldTimeline {
  double union_gpu_s = 0;     // Σ over GPUs of the time it was held by at least one job
  double span_s = 0;          // the replay's last event: last allocation change or submission
  std::size_t gpu_takes = 0;  // Σ over takes of the GPUs taken (each adds printed-time rounding)
};

// One job's jobs.csv numbers.
struct JobEnergy {
  std::string who;  // "jobs.csv:LINE: job 'ID'"
  double energy_j = 0;
  double gpu_seconds = 0;
};

// The problems found (empty: consistent). `note` gets a short text for the
// ok line ("energy ... as in summary.json", or why it was not checked).
std::vector<std::string> energy_problems(const nlohmann::json& summary, const HeldTimeline& held,
                                         const std::vector<JobEnergy>& jobs, std::string& note);

}  // namespace vnsim::cli
