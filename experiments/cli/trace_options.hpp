#pragma once
// Trace options shared by `vnsim replay` and `vnsim trace convert`: filters,
// construction rules (generated traces: vnsim/traces/generated_trace.hpp).
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "args.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/job_preparation.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim::cli {

// Flags that take a value: --from-s --to-s --vc --user --status --min-gpus
// --max-gpus --arrival-scale --load-scale --model-rules --failed-jobs.
const std::set<std::string>& trace_option_flags();
const char* trace_option_usage();
// The flags in `args`, with `seed` for every seeded choice.
JobPreparation job_preparation_from(const Args& args, std::uint64_t seed);

double parse_number(const std::string& flag, const std::string& text);

// Splits argv into positional arguments and the rest; an argument that follows
// a flag in `flags_with_values` is that flag's value, not a positional.
std::vector<std::string> take_positionals(std::vector<std::string>& argv,
                                          const std::set<std::string>& flags_with_values);

// skipped_rows.csv (docs/OUTPUTS.md): file, line, reason, kind of every row
// a trace read or filter dropped; file and reason always quoted.
std::string skipped_rows_csv(const std::vector<TraceIssue>& skipped);

}  // namespace vnsim::cli
