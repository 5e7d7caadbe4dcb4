#pragma once
// Views of a replay's output folder for other tools (docs/OUTPUTS.md,
// "vnsim export"): Batsim's jobs.csv and a Chrome trace-event timeline.
// Both read the folder's files back and throw InputError (file:line and
// reason) on damage.
#include <filesystem>
#include <string>

namespace vnsim::cli {

// jobs.csv with Batsim's columns and final_state values, from DIR/jobs.csv
// and DIR/summary.json.
std::string batsim_jobs_csv(const std::filesystem::path& dir);

// A Chrome trace-event JSON (chrome://tracing, Perfetto) of
// DIR/allocations.csv: one track per GPU, a slice per job holding it,
// instant events where a job was preempted or lost a node.
std::string chrome_trace_json(const std::filesystem::path& dir);

}  // namespace vnsim::cli
