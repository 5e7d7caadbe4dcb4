#pragma once
// `vnsim policies [NAME]`: every registered policy (or one) with its
// parameters, defaults and meaning, as `--policy-param key=value` takes them.
#include <string>
#include <vector>

namespace vnsim::cli {
const char* policies_usage();
int run_policies_command(const std::vector<std::string>& argv);
}  // namespace vnsim::cli
