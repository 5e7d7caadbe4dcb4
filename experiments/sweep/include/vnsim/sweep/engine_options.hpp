#pragma once
// The engine options a sweep config's policy entry may set ("engine": {...},
// docs/EXPERIMENTS.md): one table, read by the config's parser (names,
// value checks, the results label) and by each run's `vnsim replay` command
// line, so adding an option is one row.
#include <string_view>
#include <vector>

namespace vnsim::sweep {

enum class EngineOptionKind {
  Switch,            // true passes the flag, false leaves it out
  NonNegativeNumber  // passes the flag with the number
};

struct EngineOption {
  std::string_view key;   // in the config
  std::string_view flag;  // of `vnsim replay`, without the leading "--"
  EngineOptionKind kind;
};

// In key order, the order of the results label.
const std::vector<EngineOption>& engine_options();
const EngineOption* find_engine_option(std::string_view key);

}  // namespace vnsim::sweep
