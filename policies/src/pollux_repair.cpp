// The multi-node repair of Pollux's search (pollux_search.hpp): a row cut
// back to what the nodes left by the rows before it hold and to the job's
// caps. The one-node repair and begin_repair() stay in pollux_search.cpp,
// beside breed(), which calls them for every row it breeds.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "pollux_search.hpp"

namespace vnsim::pollux {

void Search::repair(Individual& ind) {
  Lane& lane = lanes_[0];
  begin_repair(lane);
  for (std::size_t j = 0; j < jobs.size(); ++j) repair_row(lane, j, ind.rows[j]);
  ind.repaired = true;
  lane.repaired += static_cast<long>(jobs.size());
}

void Search::repair_row(Lane& lane, std::size_t j, Row& r, bool within_caps) {
  // Members and the row's node count are read into locals: a row's GPU
  // counts are bytes, which may alias any object, so after each store to
  // a count the compiler would read them from memory again.
  NodeUse* const use = lane.node_use.data();
  const std::uint32_t stamp = lane.repair;
  const int max_nodes = max_nodes_;
  int n = r.n;
  bool changed = false;
  auto drop = [&r, &n, &changed](int i) {  // as Row::drop
    r.node[i] = r.node[n - 1];
    r.count[i] = r.count[n - 1];
    --n;
    changed = true;
  };
  auto gpus_of_row = [&r, &n] {
    int k = 0;
    for (int i = 0; i < n; ++i) k += r.count[i];
    return k;
  };
  // Where the claims and the capacity pass below start.
  int claim_from = 0;
  int room_from = 0;
  if (within_caps && n > 1) {
    // A row within the job's caps (breed(): a repaired parent's row, kept
    // or made sparser) stays within them as nodes are dropped, so the caps
    // cut nothing between the two passes. Both passes then run node by
    // node in one loop while neither drops a node: each pass leaves the
    // nodes before its first drop where they are, and a node's claim and
    // room depend only on the rows before this one (a row holds a node
    // once). At the first drop the passes go on separately from there, in
    // the order of two passes: the same nodes, in the same order, with
    // the same counts and marks.
    int i = 0;
    bool no_room = false;
    for (; i < n; ++i) {
      NodeUse& u = use[r.node[i]];
      if (u.claimed_in == stamp) break;  // dropped by the claims: both passes go on from i
      u.claimed_in = stamp;
      const int used = u.used_in == stamp ? u.used : 0;
      const int count = std::min<int>(r.count[i], u.capacity - used);
      if (count == 0) {  // claimed, then dropped by the capacity pass: it goes on from i
        no_room = true;
        break;
      }
      if (count != r.count[i]) {
        r.count[i] = static_cast<std::uint8_t>(count);
        changed = true;
      }
      u.used = used + count;
      u.used_in = stamp;
    }
    if (i == n) {
      if (changed) r.scored = false;
      return;
    }
    claim_from = no_room ? i + 1 : i;
    room_from = i;
  }
  int gpus = 0;  // the row's GPUs, counted as the claims go
  if (n > 1) {
    // Drops the nodes an earlier distributed job claimed and claims the
    // others, in one pass: a row holds each node once, so claiming one of
    // its nodes cannot drop another of them.
    for (int i = claim_from; i < n;) {
      std::uint32_t& claimed_in = use[r.node[i]].claimed_in;
      if (claimed_in == stamp) {
        drop(i);
      } else {
        claimed_in = stamp;
        gpus += r.count[i];
        ++i;
      }
    }
  } else {
    gpus = gpus_of_row();
  }
  if (!within_caps) {
    if (n > max_nodes) {
      while (n > max_nodes)
        drop(static_cast<int>(std::min_element(r.count.begin(), r.count.begin() + n) - r.count.begin()));
      gpus = gpus_of_row();
    }
    for (int over = gpus - hot_[j].max_gpus; over > 0;) {
      const int i = n - 1;
      const int cut = std::min<int>(over, r.count[i]);
      r.count[i] = static_cast<std::uint8_t>(r.count[i] - cut);
      over -= cut;
      for (int k = 0; k < n;)  // as Row::compact
        if (r.count[k] == 0)
          drop(k);
        else
          ++k;
      changed = true;
    }
  }
  // Node capacity, a node left with no GPU dropped as it goes: a node's
  // room depends only on the rows before this one, so the row ends as a
  // capacity pass followed by compact() would leave it (the node swapped
  // into a dropped one's slot is checked next, as compact() would).
  for (int i = room_from; i < n;) {
    NodeUse& u = use[r.node[i]];
    const int used = u.used_in == stamp ? u.used : 0;
    int count = r.count[i];
    if (u.capacity - used < count) {
      count = u.capacity - used;
      r.count[i] = static_cast<std::uint8_t>(count);
      changed = true;
    }
    u.used = used + count;
    u.used_in = stamp;
    if (count == 0)
      drop(i);
    else
      ++i;
  }
  r.n = static_cast<std::uint8_t>(n);
  if (changed) r.scored = false;
}

}  // namespace vnsim::pollux
