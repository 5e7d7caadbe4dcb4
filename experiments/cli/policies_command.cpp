#include "policies_command.hpp"

#include <algorithm>
#include <cstdio>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::cli {
namespace {

void print_policy(const std::string& name) {
  const std::vector<PolicyParamInfo> params = policy_parameters(name);
  std::printf("%s\n", name.c_str());
  if (params.empty()) {
    std::printf("  (no parameters)\n");
    return;
  }
  // Align the meanings after the longest key=default of this policy.
  std::size_t width = 0;
  for (const PolicyParamInfo& p : params) width = std::max(width, p.key.size() + 1 + p.default_value.size());
  for (const PolicyParamInfo& p : params) {
    const std::string setting = p.key + "=" + p.default_value;
    std::printf("  %-*s  %s\n", static_cast<int>(width), setting.c_str(), p.meaning.c_str());
  }
}

}  // namespace

const char* policies_usage() {
  return "vnsim policies [NAME]   list scheduling policies, their parameters (key=default) and meaning\n";
}

int run_policies_command(const std::vector<std::string>& argv) {
  if (argv.size() > 1)
    throw InputError("policies: expected at most one policy name, got " + std::to_string(argv.size()) +
                     " arguments");
  if (argv.size() == 1) {
    if (argv[0] == "--help" || argv[0] == "-h") {
      std::printf("usage: %s", policies_usage());
      return 0;
    }
    print_policy(argv[0]);  // throws InputError naming the valid policies
    return 0;
  }
  std::printf("Set parameters with --policy-param key=value (repeatable) or in the experiment config.\n");
  for (const std::string& name : policy_names()) print_policy(name);
  return 0;
}

}  // namespace vnsim::cli
