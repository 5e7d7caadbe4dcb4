#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* sweep_usage();
int run_sweep_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
