#pragma once
// Trace readers (docs/TRACES.md): stream a trace file, turn each usable row
// into a JobSpec and report every other row as "file:line: reason".
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {

// format: one of trace_format_names(), or "" to detect it from the first
// non-blank line. Jobs come back sorted stably by submit time and rebased so
// the first submission is at 0. Bad rows are collected in `skipped`
// (BadRowPolicy::Skip) or thrown as InputError("file:line: reason") at the
// first one (Fail). A missing file or an unusable header always throws.
TraceReadResult read_trace(const std::string& path, const std::string& format, BadRowPolicy policy);

// jsonl: one JSON object per job, the fields of JobSpec (docs/TRACES.md).
std::string to_jsonl_line(const JobSpec& job);
void write_jsonl(const std::string& path, const std::vector<JobSpec>& jobs);

}  // namespace vnsim
