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
    // Any number is the rule for a number; only narrower ranges are shown.
    const std::string accepts = p.range == "number" ? "" : " (" + p.range + ")";
    std::printf("  %-*s  %s%s\n", static_cast<int>(width), setting.c_str(), p.meaning.c_str(),
                accepts.c_str());
  }
}

// A table cell: '|' would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// The parameter tables of docs/POLICIES.md, from the registry itself.
void print_markdown() {
  for (const std::string& name : policy_names()) {
    const std::vector<PolicyParamInfo> params = policy_parameters(name);
    std::printf("#### `%s`\n\n", name.c_str());
    if (params.empty()) {
      std::printf("No parameters.\n\n");
      continue;
    }
    std::printf("| key | default | accepts | meaning |\n|---|---|---|---|\n");
    for (const PolicyParamInfo& p : params)
      std::printf("| `%s` | `%s` | %s | %s |\n", p.key.c_str(), p.default_value.c_str(),
                  cell(p.range).c_str(), cell(p.meaning).c_str());
    std::printf("\n");
  }
}

}  // namespace

const char* policies_usage() {
  return "vnsim policies [NAME | --markdown]   list scheduling policies, their parameters (key=default),\n"
         "      meaning and accepted values; --markdown: as the parameter tables of docs/POLICIES.md\n";
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
    if (argv[0] == "--markdown") {
      print_markdown();
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
