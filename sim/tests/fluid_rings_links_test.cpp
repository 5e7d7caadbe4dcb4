#include "fluid_rings_links.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

namespace vnsim::sim {
namespace {

using Link = const int*;
using Users = RingLinkUsers<Link>;
using Loads = std::vector<std::pair<Link, double>>;
using Running = std::map<std::size_t, Loads>;

constexpr double kCapacity = 10;
double capacity(Link) {
  return kCapacity;
}

// The links of `running` two or more rings cross and whose loads do not add
// up to under the capacity by RingLinkUsers' margin for rounding (a sum
// equal to the capacity counts): those that can stretch a ring.
std::set<Link> contending(const Running& running) {
  std::map<Link, std::pair<int, double>> use;
  for (const auto& [ring, loads] : running)
    for (const auto& [l, own] : loads) {
      ++use[l].first;
      use[l].second += own;
    }
  std::set<Link> out;
  for (const auto& [l, u] : use)
    if (u.first >= 2 && u.second > kCapacity * (1 - 1e-9)) out.insert(l);
  return out;
}

// Every running ring's component, worked out from scratch: rings joined
// when they cross a common contending link (union-find).
std::map<std::size_t, std::set<std::size_t>> all_components(const Running& running) {
  const std::set<Link> links = contending(running);
  std::map<std::size_t, std::size_t> parent;
  for (const auto& [ring, loads] : running) parent[ring] = ring;
  auto root = [&parent](std::size_t r) {
    while (parent[r] != r) r = parent[r];
    return r;
  };
  std::map<Link, std::size_t> first_user;
  for (const auto& [ring, loads] : running)
    for (const auto& [l, own] : loads)
      if (links.count(l))
        if (auto [it, fresh] = first_user.emplace(l, ring); !fresh) parent[root(ring)] = root(it->second);
  std::map<std::size_t, std::set<std::size_t>> by_root;
  for (const auto& [ring, loads] : running) by_root[root(ring)].insert(ring);
  std::map<std::size_t, std::set<std::size_t>> by_ring;
  for (const auto& [ring, loads] : running) by_ring[ring] = by_root[root(ring)];
  return by_ring;
}

// Checks one component against `running`: its links are its rings'
// contending links, and each ring's entries name them by place.
void expect_component(const Running& running, const Users::Component& c, int batch) {
  const std::set<Link> all = contending(running);
  std::set<Link> expected_links;
  for (std::size_t r : c.rings)
    for (const auto& [l, own] : running.at(r))
      if (all.count(l)) expected_links.insert(l);
  ASSERT_EQ(std::set<Link>(c.links.begin(), c.links.end()), expected_links) << batch;
  ASSERT_EQ(c.links.size(), expected_links.size()) << batch;
  ASSERT_EQ(c.first.size(), c.rings.size() + 1) << batch;
  for (std::size_t i = 0; i < c.rings.size(); ++i) {
    std::vector<std::pair<std::size_t, std::size_t>> expected;
    const Loads& loads = running.at(c.rings[i]);
    for (std::size_t k = 0; k < loads.size(); ++k)
      if (all.count(loads[k].first))
        expected.emplace_back(
            k, static_cast<std::size_t>(std::find(c.links.begin(), c.links.end(), loads[k].first) -
                                        c.links.begin()));
    std::vector<std::pair<std::size_t, std::size_t>> got(c.ring_links.begin() + c.first[i],
                                                         c.ring_links.begin() + c.first[i + 1]);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, expected) << batch;
  }
}

// Random starts, stops and speed changes; after each batch, take_changed
// gives components worked out from scratch, among them those of the rings
// that started or changed and of those left on a stopped ring's links
// where that link contended, at the last take_changed or just before the
// stop. Those left on a link that contended at neither may come back too
// (when a ring was added to it since), but need not.
TEST(FluidRingsLinks, ChangedComponentsAreThoseWorkedOutFromScratch) {
  std::array<int, 40> storage{};
  std::mt19937 rng(7);
  Users users;
  Running running;
  for (int batch = 0; batch < 1500; ++batch) {
    std::set<std::size_t> touched;  // running rings whose component must come back
    std::vector<Link> left;
    const std::set<Link> contended_at_last_take = contending(running);
    for (unsigned step = 0, n = 1 + rng() % 3; step < n; ++step) {
      const std::size_t ring = rng() % 60;
      if (auto it = running.find(ring); it != running.end()) {
        if (rng() % 4 == 0) {
          users.changed(ring);
          touched.insert(ring);
          continue;
        }
        users.remove(ring);
        const std::set<Link> contended_before_stop = contending(running);
        for (const auto& [l, own] : it->second)
          if (contended_at_last_take.count(l) || contended_before_stop.count(l)) left.push_back(l);
        running.erase(it);
        touched.erase(ring);
      } else {
        std::map<Link, double> loads;
        for (unsigned k = 0, m = 1 + rng() % 5; k < m; ++k)
          loads[&storage[rng() % storage.size()]] = 1 + static_cast<double>(rng() % 7);
        running[ring].assign(loads.begin(), loads.end());
        users.add(ring, running[ring]);
        touched.insert(ring);
      }
    }
    for (const auto& [ring, loads] : running)
      for (const auto& [l, own] : loads)
        if (std::find(left.begin(), left.end(), l) != left.end()) touched.insert(ring);
    const auto all = all_components(running);
    std::set<std::set<std::size_t>> expected;
    for (std::size_t r : touched) expected.insert(all.at(r));
    if (!touched.empty()) {
      ASSERT_TRUE(users.any_changed()) << batch;
    }
    const auto got = users.take_changed(capacity);
    std::set<std::set<std::size_t>> came_back;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const std::set<std::size_t> rings(got[k].rings.begin(), got[k].rings.end());
      ASSERT_TRUE(std::is_sorted(got[k].rings.begin(), got[k].rings.end())) << batch;
      ASSERT_EQ(rings.size(), got[k].rings.size()) << batch;
      ASSERT_EQ(all.at(got[k].rings.front()), rings) << batch;
      came_back.insert(rings);
      if (k > 0) {
        ASSERT_LT(got[k - 1].rings.front(), got[k].rings.front()) << batch;
      }
      expect_component(running, got[k], batch);
    }
    ASSERT_EQ(came_back.size(), got.size()) << batch;
    ASSERT_TRUE(std::includes(came_back.begin(), came_back.end(), expected.begin(), expected.end())) << batch;
    ASSERT_FALSE(users.any_changed());
  }
}

// A settle reads the entries of the links two or more rings cross only:
// a ring's own links (most of a route on 10,000 GPUs) are skipped by their
// count of rings, without a cache miss on their entry each.
TEST(FluidRingsLinks, ARingsOwnLinksAreNotRead) {
  std::vector<int> storage(201);
  Users users;
  for (std::size_t ring = 0; ring < 2; ++ring) {
    Loads loads = {{&storage[0], 6}};
    for (std::size_t i = 0; i < 100; ++i) loads.emplace_back(&storage[1 + 100 * ring + i], 1);
    users.add(ring, loads);
  }
  const auto got = users.take_changed(capacity);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rings, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(got[0].ring_links, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 0}}));
  EXPECT_EQ(users.entries_read(), 2u);
}

// A stop on links that did not contend (their rings fit together) brings
// back none of the rings left on them: nothing there stretched them, and
// with less load nothing can. Under pollux at 10,000 GPUs every stop
// brought back every ring on its rack and spine links.
TEST(FluidRingsLinks, AStopOnLinksThatFitBringsBackNoRing) {
  std::vector<int> storage(2);
  Users users;
  for (std::size_t ring = 0; ring < 4; ++ring) users.add(ring, {{&storage[0], 2}, {&storage[1], 1}});
  EXPECT_EQ(users.take_changed(capacity).size(), 4u);
  users.remove(2);
  EXPECT_FALSE(users.any_changed());
  EXPECT_TRUE(users.take_changed(capacity).empty());
  // A ring added and stopped again before a settle reaches the link may
  // have made it contend: the rings left come back.
  users.add(2, {{&storage[0], 6}});
  users.remove(2);
  EXPECT_TRUE(users.any_changed());
  EXPECT_EQ(users.take_changed(capacity).size(), 3u);
  // A stop on a link that contended brings back the rings left on it.
  users.add(2, {{&storage[0], 6}});
  EXPECT_EQ(users.take_changed(capacity).size(), 1u);
  users.remove(2);
  EXPECT_EQ(users.take_changed(capacity).size(), 3u);
}

// A stopped ring keeps its lists for a restart (a time slice's), but a
// finished one gives them back: on the 1M-job bench every job's lists were
// kept to the end of the run.
TEST(FluidRingsLinks, AFinishedRingGivesItsListsBack) {
  std::vector<int> storage(100);
  Users users;
  Loads loads;
  for (int& link : storage) loads.emplace_back(&link, 1);
  users.add(0, loads);
  users.add(1, loads);
  users.remove(0);
  users.remove(1);
  EXPECT_GE(users.list_slots(), 400u);
  users.forget(0);
  EXPECT_GE(users.list_slots(), 200u);
  users.forget(1);
  EXPECT_EQ(users.list_slots(), 0u);
}

// A settle's work follows what changed: 1,000 pairs of rings, each pair
// overloading a link of its own. Once all are taken, a speed change in one
// pair brings back that pair alone, reading its link's two users, and a
// stop in another brings back its partner alone, with no link left.
TEST(FluidRingsLinks, AChangeBringsBackOnlyItsOwnComponent) {
  std::vector<int> storage(3000);
  Users users;
  Running running;
  for (std::size_t pair = 0; pair < 1000; ++pair)
    for (std::size_t ring : {2 * pair, 2 * pair + 1}) {
      running[ring] = {{&storage[pair], 6}, {&storage[1000 + ring], 10}};
      users.add(ring, running[ring]);
    }
  EXPECT_EQ(users.take_changed(capacity).size(), 1000u);
  EXPECT_EQ(users.users_visited(), 2000u);
  EXPECT_FALSE(users.any_changed());
  EXPECT_TRUE(users.take_changed(capacity).empty());

  users.changed(7);
  auto got = users.take_changed(capacity);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rings, (std::vector<std::size_t>{6, 7}));
  EXPECT_EQ(got[0].links, std::vector<Link>{&storage[3]});
  EXPECT_EQ(got[0].ring_links, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 0}}));
  EXPECT_EQ(users.users_visited(), 2002u);

  users.remove(10);
  running.erase(10);
  got = users.take_changed(capacity);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rings, std::vector<std::size_t>{11});
  EXPECT_TRUE(got[0].links.empty());
  EXPECT_EQ(users.users_visited(), 2002u);
}

// Rings that fit together on a link, even all communicating at once, are
// not linked by it: a change in one brings it back alone.
TEST(FluidRingsLinks, RingsThatFitTogetherOnALinkAreNotLinked) {
  std::vector<int> storage(2);
  Users users;
  const Loads a = {{&storage[0], 5}, {&storage[1], 2}};
  const Loads b = {{&storage[0], 4.5}};
  users.add(0, a);
  users.add(1, b);
  auto got = users.take_changed(capacity);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[0].links.empty());
  EXPECT_TRUE(got[1].links.empty());
  const Loads c = {{&storage[0], 1}};  // 5 + 4.5 + 1 > 10: now they contend
  users.add(2, c);
  got = users.take_changed(capacity);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rings, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(got[0].links, std::vector<Link>{&storage[0]});
}

// A chain of rings, each overloading a link with the next: a change at one
// end reaches the other end, through every link.
TEST(FluidRingsLinks, AComponentIsFollowedThroughLinksTransitively) {
  std::vector<int> storage(100);
  Users users;
  for (std::size_t ring = 0; ring < 50; ++ring)
    users.add(ring, {{&storage[ring], 6}, {&storage[ring + 1], 6}});
  users.take_changed(capacity);
  users.changed(0);
  const auto got = users.take_changed(capacity);
  ASSERT_EQ(got.size(), 1u);
  std::vector<std::size_t> all(50);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(got[0].rings, all);
  EXPECT_EQ(got[0].links.size(), 49u);
}

}  // namespace
// A link's bandwidth is read the first time a settle reaches it, never
// again; a ring stopped and started again before a settle comes once.
TEST(FluidRingsLinks, ALinksCapacityIsReadOnceAndARestartComesOnce) {
  std::vector<int> storage(2);
  Users users;
  std::size_t reads = 0;
  const auto counted = [&reads](Link l) {
    ++reads;
    return capacity(l);
  };
  const Loads both = {{&storage[0], 6}, {&storage[1], 6}};
  users.add(0, both);
  users.add(1, both);
  EXPECT_EQ(users.take_changed(counted).size(), 1u);
  EXPECT_EQ(reads, 2u);
  users.remove(1);
  users.add(1, both);
  users.changed(1);
  const auto got = users.take_changed(counted);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rings, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(got[0].capacity, (std::vector<double>{10, 10}));
  EXPECT_EQ(reads, 2u);
  users.remove(0);
  EXPECT_TRUE(users.any_changed());
  EXPECT_EQ(users.take_changed(counted).size(), 1u);
  EXPECT_FALSE(users.any_changed());
}

}  // namespace vnsim::sim
