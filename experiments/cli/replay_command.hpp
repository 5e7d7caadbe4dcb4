#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* replay_usage();
int run_replay_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
