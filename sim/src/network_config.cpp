#include "network_config.hpp"

#include <stdexcept>

namespace vnsim::sim {

simgrid::s4u::Engine& create_configured_engine() {
  if (simgrid::s4u::Engine::has_instance())
    throw std::logic_error("a SimGrid engine already exists in this process; run one replay per process");
  // SimGrid keeps pointers into argv, so the strings must outlive the engine.
  static char prog[] = "vnsim";
  static char log_root[] = "--log=root.thresh:warning";
  static char log_cfg[] = "--log=xbt_cfg.thresh:warning";
  static char* argv[] = {prog, log_root, log_cfg, nullptr};
  int argc = 3;
  // Never deleted: tearing the engine down and building another one in the
  // same process is unsupported in SimGrid 3.32.
  auto* engine = new simgrid::s4u::Engine(&argc, argv);
  simgrid::s4u::Engine::set_config("network/model:CM02");
  simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  simgrid::s4u::Engine::set_config("network/TCP-gamma:1e12");
  return *engine;
}

}  // namespace vnsim::sim
