#pragma once
// Which fluid rings cross which links, with what load, kept up to date as
// rings start and stop, and which rings changed since the last settle, so
// that FluidRings::settle re-solves only the rings connected to a change
// (docs/PERFORMANCE_HISTORY.md, "Fluid rings: settle only what changed").
//
// In the fluid model (fluid_contention.hpp) a ring's stretch follows only
// from the rings on the links it shares, so rings linked to one another
// through shared links, transitively (a component), are solved together and
// apart from every other component. A shared link whose rings' loads add up
// to less than its capacity even when all of them communicate at once
// cannot stretch anyone (its term in the model is exactly 1, whatever the
// comm fractions): it links no rings here and goes to no model (`contends`).
// No SimGrid type here: `Link` is any pointer type.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fluid_contention.hpp"

namespace vnsim::sim {

template <class Link>
class RingLinkUsers {
 public:
  // Linked rings, sorted, and the links that link them, numbered by their
  // place in `links`. Ring rings[i]'s contending links are
  // ring_links[first[i]] .. ring_links[first[i + 1]] - 1, each as (its place
  // in the loads the ring was added with, its place in `links`).
  struct Component {
    std::vector<std::size_t> rings;
    std::vector<Link> links;
    std::vector<double> capacity;  // of each of `links`, as take_changed read it
    std::vector<std::pair<std::size_t, std::size_t>> ring_links;
    std::vector<std::size_t> first;
  };

  // `ring` now puts load.second bytes/s on each link load.first (no
  // duplicates among them) while communicating; its component changed.
  void add(std::size_t ring, const std::vector<std::pair<Link, double>>& loads) {
    if (ring >= entries_.size()) entries_.resize(ring + 1);
    if (ring >= ids_.size()) ids_.resize(ring + 1);
    std::vector<Entry*>& mine = entries_[ring];
    std::vector<std::uint32_t>& ids = ids_[ring];
    mine.clear();
    ids.clear();
    for (const auto& [l, own_Bps] : loads) {
      auto [it, fresh] = users_.try_emplace(l);
      Entry& e = it->second;
      if (fresh) {
        e.id = static_cast<std::uint32_t>(user_count_.size());
        user_count_.push_back(0);
      }
      e.link = l;
      e.users.push_back(User{ring, own_Bps});
      ++user_count_[e.id];
      e.added = true;
      mine.push_back(&e);  // a map node never moves, and is never erased
      ids.push_back(e.id);
    }
    mark_changed(ring);
  }
  // `ring` (one added) no longer crosses its links; the rings left on them
  // changed.
  void remove(std::size_t ring) {
    for (Entry* e : entries_[ring]) {
      std::vector<User>& users = e->users;
      // A link's rings are kept in no order (a component sorts its rings),
      // so the ring's slot takes the last entry instead of the tail being
      // shifted down.
      *std::find_if(users.begin(), users.end(), [ring](const User& u) { return u.ring == ring; }) =
          users.back();
      users.pop_back();
      --user_count_[e->id];
      // The rings left on a link that did not contend when a settle last
      // reached it, and has only lost rings since, were not linked by it
      // nor stretched by it, and still are not (its load only went down):
      // their components did not change through it, so they are not
      // brought back (a stop brought back every ring on its rack and spine
      // links, most of which fit; docs/PERFORMANCE_HISTORY.md, "Fluid settle
      // at 1M under pollux (eleventh pass)").
      if (!users.empty() && (e->contends || e->added)) left_links_.push_back(e);
      // An emptied link keeps its (empty) entry: time slicing takes and
      // gives back the same links every slice, and erasing and re-making
      // the map node and its vector each time was malloc churn. The links
      // are the platform's, so the map stays bounded.
    }
    entries_[ring].clear();
    ids_[ring].clear();
    // It stays in changed_rings_ (a vector, not erased from), unmarked.
    if (ring < is_changed_.size() && is_changed_[ring]) {
      is_changed_[ring] = 0;
      --changed_count_;
    }
  }
  // `ring` (not added now) will never be added again: its lists' memory goes
  // back (remove keeps it for a ring that restarts, as time slicing does;
  // kept for every finished job of a 1M-job trace it was hundreds of MB).
  void forget(std::size_t ring) {
    if (ring < entries_.size()) std::vector<Entry*>().swap(entries_[ring]);
    if (ring < ids_.size()) std::vector<std::uint32_t>().swap(ids_[ring]);
  }
  // `ring` (one added) changed how it uses its links (its comm fraction).
  void changed(std::size_t ring) { mark_changed(ring); }
  // Whether anything changed since the last take_changed.
  bool any_changed() const { return changed_count_ > 0 || !left_links_.empty(); }

  // The components that hold a ring changed since the last call, or one
  // left on a link a stopped ring crossed that contended when a settle last
  // reached it or gained a ring since, in order of their first ring; a
  // changed ring on no contending link comes alone, with no link.
  // `capacity(l)` is link l's bandwidth, read once per link (a link's
  // bandwidth never changes). Forgets the changes. The components are kept
  // here, and their vectors reused, until the next call.
  template <class Capacity>
  std::span<const Component> take_changed(const Capacity& capacity) {
    std::vector<std::size_t>& seeds = seeds_;
    seeds.clear();
    for (std::size_t ring : changed_rings_)
      if (is_changed_[ring]) {
        is_changed_[ring] = 0;
        seeds.push_back(ring);
      }
    for (const Entry* e : left_links_)
      for (const User& u : e->users) seeds.push_back(u.ring);
    changed_rings_.clear();
    changed_count_ = 0;
    left_links_.clear();
    std::sort(seeds.begin(), seeds.end());
    ++generation_;
    if (ring_seen_.size() < entries_.size()) ring_seen_.resize(entries_.size(), 0);
    std::size_t used = 0;
    for (std::size_t seed : seeds) {
      if (ring_seen_[seed] == generation_) continue;
      ring_seen_[seed] = generation_;
      if (used == components_.size()) components_.emplace_back();
      Component& c = components_[used++];
      c.rings.clear();
      c.links.clear();
      c.capacity.clear();
      c.ring_links.clear();
      c.first.clear();
      c.rings.push_back(seed);
      // Breadth first over the contending links; c.rings is the queue. Each
      // ring's contending links are noted as its entries are walked (found_,
      // per place in the queue), then put in ring order: walking every ring's
      // entries a second time after the sort was about 30% of settle's samples
      // under pollux at 10,000 GPUs (an entry is a cache miss).
      found_.clear();
      found_first_.clear();
      for (std::size_t next = 0; next < c.rings.size(); ++next) {
        found_first_.push_back(found_.size());
        const std::vector<Entry*>& mine = entries_[c.rings[next]];
        const std::vector<std::uint32_t>& ids = ids_[c.rings[next]];
        for (std::size_t k = 0; k < mine.size(); ++k) {
          // Most of a ring's links are its own (a dense count, no cache
          // miss on their entries).
          if (user_count_[ids[k]] < 2) continue;
          Entry* e = mine[k];
          ++entries_read_;
          if (e->seen != generation_) {
            e->seen = generation_;
            if (e->capacity_Bps < 0) e->capacity_Bps = capacity(e->link);
            const double capacity_Bps = e->capacity_Bps;
            e->contends = contends(*e, capacity_Bps);
            e->added = false;
            if (e->contends) {
              e->index = c.links.size();
              c.links.push_back(e->link);
              c.capacity.push_back(capacity_Bps);
              for (const User& u : e->users) {
                ++users_visited_;
                if (ring_seen_[u.ring] == generation_) continue;
                ring_seen_[u.ring] = generation_;
                c.rings.push_back(u.ring);
              }
            }
          }
          if (e->contends) found_.emplace_back(k, e->index);
        }
      }
      found_first_.push_back(found_.size());
      // Queue places in ring order (a ring is in the queue once).
      by_ring_.clear();
      for (std::size_t q = 0; q < c.rings.size(); ++q) by_ring_.emplace_back(c.rings[q], q);
      std::sort(by_ring_.begin(), by_ring_.end());
      for (std::size_t i = 0; i < by_ring_.size(); ++i) {
        const auto [ring, q] = by_ring_[i];
        c.rings[i] = ring;
        c.first.push_back(c.ring_links.size());
        c.ring_links.insert(c.ring_links.end(), found_.begin() + static_cast<std::ptrdiff_t>(found_first_[q]),
                            found_.begin() + static_cast<std::ptrdiff_t>(found_first_[q + 1]));
      }
      c.first.push_back(c.ring_links.size());
    }
    const auto out = components_.begin() + static_cast<std::ptrdiff_t>(used);
    std::sort(components_.begin(), out,
              [](const Component& a, const Component& b) { return a.rings.front() < b.rings.front(); });
    return {components_.data(), used};
  }
  // Work counter: ring entries take_changed has read on contending links,
  // all calls together.
  std::size_t users_visited() const { return users_visited_; }
  // Work counter: link entries take_changed has read, all calls together.
  std::size_t entries_read() const { return entries_read_; }
  // Slots the per-ring lists hold (their capacity), all rings together.
  std::size_t list_slots() const {
    std::size_t n = 0;
    for (const auto& v : entries_) n += v.capacity();
    for (const auto& v : ids_) n += v.capacity();
    return n;
  }

 private:
  struct User {
    std::size_t ring;
    double own_Bps;
  };
  struct Entry {
    Link link{};
    std::uint32_t id = 0;  // its place in user_count_
    std::vector<User> users;
    std::size_t seen = 0;      // generation_ of the last take_changed that reached it
    bool contends = false;     // as found then
    bool added = true;         // a ring was added since then (or never reached)
    std::size_t index = 0;     // its place in that component's links
    double capacity_Bps = -1;  // < 0 until read
  };
  // Whether the link's rings can overload it (load_fits_link).
  static bool contends(const Entry& e, double capacity_Bps) {
    double total = 0;
    for (const User& u : e.users) total += u.own_Bps;
    return !load_fits_link(total, capacity_Bps, e.users.size());
  }

  // Every link a ring crosses now or crossed; only looked up, never walked,
  // so its order does not matter.
  std::unordered_map<Link, Entry> users_;
  std::vector<std::vector<Entry*>> entries_;  // per ring, its links' entries while added
  // Per ring, its links' ids (Entry::id), as entries_; per link id, its
  // number of rings (users.size()), read by take_changed without the entry.
  // (32 bits: a platform has far fewer links, and ids_ is kept per job.)
  std::vector<std::vector<std::uint32_t>> ids_;
  std::vector<std::uint32_t> user_count_;
  void mark_changed(std::size_t ring) {
    if (ring >= is_changed_.size()) is_changed_.resize(ring + 1, 0);
    if (is_changed_[ring]) return;
    is_changed_[ring] = 1;
    ++changed_count_;
    changed_rings_.push_back(ring);
  }

  // Rings added or changed since the last take_changed: those marked in
  // is_changed_ are still running (a flag per ring and a list, where a set's
  // node per insert was malloc churn at every ring start).
  std::vector<std::size_t> changed_rings_;
  std::vector<char> is_changed_;
  std::size_t changed_count_ = 0;
  std::vector<std::size_t> seeds_;     // take_changed's, kept for its capacity
  std::vector<Component> components_;  // take_changed's; the first ones it returned are valid
  // take_changed's, per component: each queued ring's contending links as
  // (place in its loads, place in the component's links), from
  // found_[found_first_[q]], and (ring, queue place) sorted by ring.
  std::vector<std::pair<std::size_t, std::size_t>> found_;
  std::vector<std::size_t> found_first_;
  std::vector<std::pair<std::size_t, std::size_t>> by_ring_;
  // Links a ring left since the last take_changed, with rings still on them.
  std::vector<const Entry*> left_links_;
  std::vector<std::size_t> ring_seen_;  // per ring, generation_ that reached it
  std::size_t generation_ = 0;
  std::size_t users_visited_ = 0;
  std::size_t entries_read_ = 0;
};

}  // namespace vnsim::sim
