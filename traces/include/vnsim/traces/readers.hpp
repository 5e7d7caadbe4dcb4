#pragma once
// Trace readers (docs/TRACES.md): stream a trace file, turn each usable row
// into a JobSpec and report every other row as "file:line: reason".
#include <string>
#include <string_view>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {

// format: one of trace_format_names(), or "" to detect it from the first
// non-blank line. Jobs come back sorted stably by submit time and rebased so
// the first submission is at 0. Bad rows are collected in `skipped`
// (BadRowPolicy::Skip) or thrown as InputError("file:line: reason") at the
// first one (Fail). A missing file or an unusable header always throws.
TraceReadResult read_trace(const std::string& path, const std::string& format, BadRowPolicy policy);

// jsonl: one JSON object per job, the fields of JobSpec (docs/TRACES.md).
// The one codec of a JobSpec as JSON: read_trace, `vnsim trace convert` and
// the real executor's trace reader and writer all use these two.
std::string to_jsonl_line(const JobSpec& job);
// One jsonl line as a JobSpec (fields checked for type and range, unknown
// fields and unknown models refused); throws InputError with the reason.
JobSpec parse_jsonl_line(std::string_view line, const ModelCatalog& models);
void write_jsonl(const std::string& path, const std::vector<JobSpec>& jobs);

}  // namespace vnsim
