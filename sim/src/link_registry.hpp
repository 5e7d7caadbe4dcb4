#pragma once
// The live jobs whose traffic is on the network (rings, parameter-server and
// layout jobs) and the links it crosses, so that each knows whether another
// live job shares one of its links: what adaptive macro-iterations
// (ReplayOptions::shorten_macro_when_contended,
// contended_macro_s) switch on. One SimGrid
// engine per process, so one registry per process.
#include <functional>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <vector>

namespace vnsim::sim {

struct LinkUser {
  std::vector<const simgrid::s4u::Link*> links;  // sorted and unique once registered
  bool contended = false;                        // another registered user shares a link
  bool registered = false;
  // Called when another user's registration makes this one contended. It
  // runs inside the registry's update, so it may only take note.
  std::function<void()> became_contended;
};

// Appends the links of the route from a to b.
void add_route_links(std::vector<const simgrid::s4u::Link*>& links, simgrid::s4u::Host* a,
                     simgrid::s4u::Host* b);

// Called when a job starts and when it ends or is stopped; both update every
// user's `contended` flag. Unregistering twice is harmless.
void register_link_user(LinkUser& user);
void unregister_link_user(LinkUser& user);

}  // namespace vnsim::sim
