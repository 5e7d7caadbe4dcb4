#pragma once
// Gavel's candidate picks (job, GPU type, and with space sharing the
// partner) and the order in which a round or a fill takes them
// (gavel_policy.hpp).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim::gavel_detail {

constexpr std::size_t kAlone = std::numeric_limits<std::size_t>::max();

struct Pick {
  double priority;
  double x;
  std::size_t pos;
  int type;
  double rate;                   // the job's steps/s on the type
  int gpus;                      // the job's width (a pair's: one job's)
  std::size_t partner = kAlone;  // space sharing: the pair's other job (pos)
};

// A pick's sort key, read once per pick instead of at every comparison.
struct PickKey {
  double priority, x;
  JobIndex first, second;  // the job's index; the partner's + 1, or 0 alone
  double rate;
  int type, gpus;
  std::size_t pick;  // in the caller's picks
};

// Whether a comes before b: highest priority first; ties by allocation, then
// job index (a pair by its first job, then its second; a job alone before
// its pairs), then the job's faster type (so a job without an allocation yet
// starts where the next LP will most likely keep it, not on the
// lowest-numbered type). Each field compares as in a tuple.
inline bool comes_before(const PickKey& a, const PickKey& b) {
  if (a.priority > b.priority) return true;
  if (b.priority > a.priority) return false;
  if (a.x > b.x) return true;
  if (b.x > a.x) return false;
  if (a.first != b.first) return a.first < b.first;
  if (a.second != b.second) return a.second < b.second;
  if (a.rate > b.rate) return true;
  if (b.rate > a.rate) return false;
  return a.type < b.type;
}

// Below this many picks one heap is cheaper than the groups.
constexpr std::size_t kFewPicks = 256;

// Calls take(pick) in the order of comes_before until take returns false,
// and returns how many it took. `room[type]` is the GPUs of the type a pick
// may still take; take may only lower it. A pick wider than its type's room
// cannot be taken, now or later in the call, so it is never handed to take.
// Above `few` picks they are kept in one heap per (type, width), and a heap
// whose width is over its type's room is dropped whole: a round on a long
// queue otherwise popped nearly every pick (a 1-GPU gap keeps the narrowest
// jobs in play while the wide ones have no room), one heap operation each.
// Every key is unique (it holds the job, partner and type), so the order of
// the picks handed to take is that of a full sort either way.
template <class Take>
inline std::size_t take_in_order(const std::vector<Pick>& picks, const std::vector<JobIndex>& index_of,
                                 const std::vector<int>& room, Take take, std::size_t few = kFewPicks) {
  auto after = [](const PickKey& a, const PickKey& b) { return comes_before(b, a); };
  auto key_of = [&](std::size_t i) {
    const Pick& p = picks[i];
    return PickKey{p.priority, p.x,    index_of[p.pos], p.partner == kAlone ? 0 : index_of[p.partner] + 1,
                   p.rate,     p.type, p.gpus,          i};
  };
  auto fits = [&](int type, int gpus) { return room[static_cast<std::size_t>(type)] >= gpus; };
  std::size_t taken = 0;
  if (picks.size() <= few) {
    std::vector<PickKey> keys;
    keys.reserve(picks.size());
    for (std::size_t i = 0; i < picks.size(); ++i) keys.push_back(key_of(i));
    std::make_heap(keys.begin(), keys.end(), after);
    for (auto end = keys.end(); end != keys.begin(); --end) {
      std::pop_heap(keys.begin(), end, after);
      const PickKey& k = *(end - 1);
      if (!fits(k.type, k.gpus)) continue;
      ++taken;
      if (!take(picks[k.pick])) break;
    }
    return taken;
  }
  // Group by (type, width), each group a heap: a counting sort over the few
  // kinds of pick (GPU types x job widths).
  struct Group {
    std::size_t begin, end;  // keys[begin, end) is the group's heap
    int type, gpus;
  };
  std::vector<Group> groups;
  std::vector<std::size_t> group_of(picks.size());
  std::size_t last = 0;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const Pick& p = picks[i];
    if (groups.empty() || groups[last].type != p.type || groups[last].gpus != p.gpus) {
      last = 0;
      while (last < groups.size() && (groups[last].type != p.type || groups[last].gpus != p.gpus)) ++last;
      if (last == groups.size()) groups.push_back(Group{0, 0, p.type, p.gpus});
    }
    group_of[i] = last;
    ++groups[last].end;  // a count until the offsets below
  }
  std::size_t offset = 0;
  for (Group& g : groups) {
    g.begin = offset;
    offset += g.end;
    g.end = g.begin;
  }
  std::vector<PickKey> keys(picks.size());
  for (std::size_t i = 0; i < picks.size(); ++i) keys[groups[group_of[i]].end++] = key_of(i);
  for (const Group& g : groups)
    std::make_heap(keys.begin() + static_cast<std::ptrdiff_t>(g.begin),
                   keys.begin() + static_cast<std::ptrdiff_t>(g.end), after);
  // The groups by their best pick, best first.
  auto group_after = [&](std::size_t a, std::size_t b) {
    return comes_before(keys[groups[b].begin], keys[groups[a].begin]);
  };
  std::vector<std::size_t> live(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) live[g] = g;
  std::make_heap(live.begin(), live.end(), group_after);
  while (!live.empty()) {
    std::pop_heap(live.begin(), live.end(), group_after);
    Group& g = groups[live.back()];
    if (!fits(g.type, g.gpus)) {
      live.pop_back();  // no room for this width on this type any more
      continue;
    }
    std::pop_heap(keys.begin() + static_cast<std::ptrdiff_t>(g.begin),
                  keys.begin() + static_cast<std::ptrdiff_t>(g.end), after);
    --g.end;
    ++taken;
    if (!take(picks[keys[g.end].pick])) break;
    if (g.end == g.begin)
      live.pop_back();
    else
      std::push_heap(live.begin(), live.end(), group_after);
  }
  return taken;
}

}  // namespace vnsim::gavel_detail
