#include "fluid_rings_links.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace vnsim::sim {
namespace {

using Link = const int*;

// What settle did before the users were kept: every ring's links collected,
// sorted, and those seen twice or more kept, with the rings that cross one.
struct Scan {
  std::vector<Link> shared;
  std::vector<std::size_t> rings;
};
Scan scan_all(const std::map<std::size_t, std::vector<Link>>& running) {
  std::vector<Link> crossed;
  for (const auto& [ring, links] : running) crossed.insert(crossed.end(), links.begin(), links.end());
  std::sort(crossed.begin(), crossed.end());
  Scan out;
  for (std::size_t i = 0; i + 1 < crossed.size(); ++i)
    if (crossed[i] == crossed[i + 1] && (out.shared.empty() || out.shared.back() != crossed[i]))
      out.shared.push_back(crossed[i]);
  for (const auto& [ring, links] : running)
    for (Link l : links)
      if (std::binary_search(out.shared.begin(), out.shared.end(), l)) {
        out.rings.push_back(ring);
        break;
      }
  return out;
}

TEST(FluidRingsLinks, KeptUpToDateTheyFindWhatSortingEveryRingsLinksFinds) {
  std::array<int, 40> storage{};
  std::mt19937 rng(7);
  RingLinkUsers<Link> users;
  std::map<std::size_t, std::vector<Link>> running;
  for (int step = 0; step < 3000; ++step) {
    const std::size_t ring = rng() % 60;
    if (auto it = running.find(ring); it != running.end()) {
      users.remove(ring, it->second);
      running.erase(it);
    } else {
      std::set<Link> links;
      for (unsigned k = 0, n = 1 + rng() % 5; k < n; ++k) links.insert(&storage[rng() % storage.size()]);
      running[ring].assign(links.begin(), links.end());
      users.add(ring, running[ring]);
    }
    const Scan expected = scan_all(running);
    ASSERT_EQ(std::vector<Link>(users.shared().begin(), users.shared().end()), expected.shared) << step;
    ASSERT_EQ(users.rings_on_shared(), expected.rings) << step;
  }
}

// The work of finding the contended rings follows the rings on shared
// links, not all running rings: 1,000 rings on links of their own and two
// that share one cost two entries read.
TEST(FluidRingsLinks, FindingContendedRingsReadsOnlyTheUsersOfSharedLinks) {
  std::vector<int> storage(2000);
  RingLinkUsers<Link> users;
  for (std::size_t ring = 0; ring < 1000; ++ring)
    users.add(ring, {&storage[2 * ring], &storage[2 * ring + 1]});
  users.add(1000, {&storage[1999]});
  EXPECT_EQ(users.shared().size(), 1u);
  EXPECT_EQ(users.rings_on_shared(), (std::vector<std::size_t>{999, 1000}));
  EXPECT_EQ(users.users_visited(), 2u);
  users.remove(1000, {&storage[1999]});
  EXPECT_TRUE(users.shared().empty());
  EXPECT_TRUE(users.rings_on_shared().empty());
  EXPECT_EQ(users.users_visited(), 2u);
}

}  // namespace
}  // namespace vnsim::sim
