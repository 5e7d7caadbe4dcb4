#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* trace_usage();
// `vnsim trace inspect|convert|generate|cluster ...` (docs/TRACES.md, "Tools").
int run_trace_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
