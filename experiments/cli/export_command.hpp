#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {

const char* export_usage();
int run_export_command(const std::vector<std::string>& argv);

}  // namespace vnsim::cli
