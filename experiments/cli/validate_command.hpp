#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* validate_usage();
int run_validate_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
