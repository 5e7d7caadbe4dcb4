#include "vnsim/sweep/engine_options.hpp"

namespace vnsim::sweep {

const std::vector<EngineOption>& engine_options() {
  // docs/PERFORMANCE.md, "Ring engines" and "Quiet rings".
  static const std::vector<EngineOption> options = {
      {"actor_rings", "actor-rings", EngineOptionKind::Switch},
      {"contended_macro_s", "contended-macro-s", EngineOptionKind::NonNegativeNumber},
      {"fluid_rings", "fluid-rings", EngineOptionKind::Switch},
      {"quiet_rings", "quiet-rings", EngineOptionKind::Switch},
  };
  return options;
}

const EngineOption* find_engine_option(std::string_view key) {
  for (const EngineOption& o : engine_options())
    if (o.key == key) return &o;
  return nullptr;
}

}  // namespace vnsim::sweep
