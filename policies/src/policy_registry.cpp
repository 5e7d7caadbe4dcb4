#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/fifo_policy.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

namespace {

using PolicyFactory = std::function<std::unique_ptr<Policy>()>;

// In the order `policy_names()` lists them (and --help prints them).
const std::vector<std::pair<std::string, PolicyFactory>>& registry() {
  static const std::vector<std::pair<std::string, PolicyFactory>> entries = {
      {"fifo", [] { return std::make_unique<FifoPolicy>(false); }},
      {"fifo-backfill", [] { return std::make_unique<FifoPolicy>(true); }},
  };
  return entries;
}

}  // namespace

std::unique_ptr<Policy> make_policy(const std::string& name) {
  for (const auto& [entry_name, factory] : registry())
    if (entry_name == name) return factory();
  std::string valid;
  for (const auto& entry : registry()) valid += (valid.empty() ? "" : ", ") + entry.first;
  throw InputError("unknown policy '" + name + "'; valid policies: " + valid);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

}  // namespace vnsim
