#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {

const char* check_usage();
int run_check_command(const std::vector<std::string>& argv);

}  // namespace vnsim::cli
