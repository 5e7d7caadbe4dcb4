#include "link_registry.hpp"

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

std::vector<LinkUser*>& live_users() {
  static std::vector<LinkUser*> users;
  return users;
}

bool share_a_link(const LinkUser& a, const LinkUser& b) {
  auto i = a.links.begin();
  auto j = b.links.begin();
  while (i != a.links.end() && j != b.links.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

// Few jobs run at once, so the quadratic pass is cheap next to the
// simulation itself.
void update_contention() {
  auto& users = live_users();
  std::vector<char> was(users.size());
  for (std::size_t u = 0; u < users.size(); ++u) {
    was[u] = users[u]->contended;
    users[u]->contended = false;
  }
  for (std::size_t a = 0; a < users.size(); ++a)
    for (std::size_t b = a + 1; b < users.size(); ++b)
      if (share_a_link(*users[a], *users[b])) users[a]->contended = users[b]->contended = true;
  for (std::size_t u = 0; u < users.size(); ++u)
    if (!was[u] && users[u]->contended && users[u]->became_contended) users[u]->became_contended();
}

}  // namespace

void add_route_links(std::vector<const sg4::Link*>& links, sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> route;
  double latency = 0;
  a->route_to(b, route, &latency);
  links.insert(links.end(), route.begin(), route.end());
}

void register_link_user(LinkUser& user) {
  std::sort(user.links.begin(), user.links.end());
  user.links.erase(std::unique(user.links.begin(), user.links.end()), user.links.end());
  user.registered = true;
  live_users().push_back(&user);
  update_contention();
}

void unregister_link_user(LinkUser& user) {
  if (!user.registered) return;
  user.registered = false;
  std::erase(live_users(), &user);
  update_contention();
}

}  // namespace vnsim::sim
