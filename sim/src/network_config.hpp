#pragma once
// The one SimGrid engine of this process, configured for datacenter links.
#include <simgrid/s4u/Engine.hpp>

namespace vnsim::sim {

// Creates the process's engine (SimGrid allows one per process; it lives
// until exit) with SimGrid's INFO logging silenced and the network model set:
// CM02 (no LV08 latency x13 / bandwidth x0.97 factors), no cross-traffic on
// reverse links, and a TCP window so large that it never caps a flow's rate.
// Throws std::logic_error when an engine already exists.
simgrid::s4u::Engine& create_configured_engine();

}  // namespace vnsim::sim
