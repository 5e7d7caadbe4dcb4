#pragma once
// Writers for `vnsim trace convert` besides jsonl (readers.hpp's
// write_jsonl): the Pollux-derived Philly CSV (docs/TRACES.md, "Tools").
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {

// `timestamp,duration,num_gpus,gpu_time,cluster`. timestamp = 1970-01-01
// 00:00:00 + submit_s rounded to whole seconds (read_trace keeps no absolute
// date); cluster = vc. A job with no recorded duration, or whose vc holds a
// comma, cannot be written: it is returned as {path, 0, "job 'id' not
// written: why"}. Throws InputError when the file cannot be written.
std::vector<TraceIssue> write_pollux_philly(const std::string& path, const std::vector<JobSpec>& jobs);

// "YYYY-MM-DD HH:MM:SS" of whole seconds since 1970-01-01 00:00:00 (naive clock).
std::string naive_timestamp(long long seconds);

}  // namespace vnsim
