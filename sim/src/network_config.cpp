#include "network_config.hpp"

#include <stdexcept>

#if defined(__SANITIZE_ADDRESS__)
// The engine is never destroyed (see below), so actors still parked in the
// kernel when a replay ends, and everything their closures own, are alive at
// exit with no root LeakSanitizer can see. Anything allocated under a SimGrid
// actor is therefore not reported; leaks outside actors still are.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libsimgrid.so\n";
}
#endif

namespace vnsim::sim {

simgrid::s4u::Engine& create_configured_engine() {
  if (simgrid::s4u::Engine::has_instance())
    throw std::logic_error("a SimGrid engine already exists in this process; run one replay per process");
  // SimGrid keeps pointers into argv, so the strings must outlive the engine.
  static char prog[] = "vnsim";
  static char log_root[] = "--log=root.thresh:warning";
  static char log_cfg[] = "--log=xbt_cfg.thresh:warning";
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow SimGrid's default hand-made stack switching
  // (false stack overflows in __asan_handle_no_return, LeakSanitizer crashing
  // on the actor stacks); system threads are slower but ASan understands them.
  // The factory is chosen while the engine is built, so it must be on argv.
  static char factory[] = "--cfg=contexts/factory:thread";
  static char* argv[] = {prog, log_root, log_cfg, factory, nullptr};
  int argc = 4;
#else
  static char* argv[] = {prog, log_root, log_cfg, nullptr};
  int argc = 3;
#endif
  // Never deleted: tearing the engine down and building another one in the
  // same process is unsupported in SimGrid 3.32.
  auto* engine = new simgrid::s4u::Engine(&argc, argv);
  simgrid::s4u::Engine::set_config("network/model:CM02");
  simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  simgrid::s4u::Engine::set_config("network/TCP-gamma:1e12");
  return *engine;
}

}  // namespace vnsim::sim
