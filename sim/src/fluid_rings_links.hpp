#pragma once
// Which fluid rings cross which links, kept up to date as rings start and
// stop, so that FluidRings::settle finds the links more than one ring crosses
// and the rings on them without collecting and sorting every running ring's
// links at each settle (docs/PERFORMANCE.md, "Fluid rings: settle without
// re-sorting"). No SimGrid type here: `Link` is any pointer type, ordered by
// address as std::sort orders pointers, so the shared links keep the
// numbering that settle gives the fluid model.
#include <algorithm>
#include <cstddef>
#include <set>
#include <unordered_map>
#include <vector>

namespace vnsim::sim {

template <class Link>
class RingLinkUsers {
 public:
  // `ring` now crosses each of `links` (no duplicates among them).
  void add(std::size_t ring, const std::vector<Link>& links) {
    for (Link l : links) {
      std::vector<std::size_t>& users = users_[l];
      users.push_back(ring);
      if (users.size() == 2) shared_.insert(l);
    }
  }
  // `ring` no longer crosses `links` (those it was added with).
  void remove(std::size_t ring, const std::vector<Link>& links) {
    for (Link l : links) {
      auto it = users_.find(l);
      if (it == users_.end()) continue;
      std::vector<std::size_t>& users = it->second;
      // A link's rings are kept in no order (rings_on_shared sorts what it
      // collects), so the ring's slot takes the last entry instead of the
      // tail being shifted down.
      *std::find(users.begin(), users.end(), ring) = users.back();
      users.pop_back();
      if (users.size() == 1) shared_.erase(l);
      // An emptied link keeps its (empty) entry: time slicing takes and
      // gives back the same links every slice, and erasing and re-making
      // the map node and its vector each time was malloc churn. The links
      // are the platform's, so the map stays bounded.
    }
  }
  // The links at least two rings cross, in address order.
  const std::set<Link>& shared() const { return shared_; }
  // The rings that cross a shared link, in index order.
  std::vector<std::size_t> rings_on_shared() {
    std::vector<std::size_t> rings;
    for (Link l : shared_) {
      const std::vector<std::size_t>& users = users_.at(l);
      rings.insert(rings.end(), users.begin(), users.end());
      users_visited_ += users.size();
    }
    std::sort(rings.begin(), rings.end());
    rings.erase(std::unique(rings.begin(), rings.end()), rings.end());
    return rings;
  }
  // Work counter: ring entries rings_on_shared has read, all calls together.
  std::size_t users_visited() const { return users_visited_; }

 private:
  // Every link a ring crosses now; only looked up, never walked, so its
  // order does not matter.
  std::unordered_map<Link, std::vector<std::size_t>> users_;
  std::set<Link> shared_;
  std::size_t users_visited_ = 0;
};

}  // namespace vnsim::sim
