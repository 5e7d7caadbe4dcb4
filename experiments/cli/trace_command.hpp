#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* trace_usage();
// `vnsim trace inspect|convert|generate|cluster ...` (docs/TRACES.md, "Tools").
int run_trace_command(const std::vector<std::string>& argv);
// `vnsim trace formats [--markdown]` (trace_formats_command.cpp).
int run_trace_formats(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
