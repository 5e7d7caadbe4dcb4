#pragma once
#include <string>
#include <vector>

namespace vnsim::cli {
const char* bench_collective_usage();
int run_bench_collective_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
