#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* report_usage();
int run_report_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
