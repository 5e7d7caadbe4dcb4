#pragma once
// Gavel's candidate picks (job, GPU type, and with space sharing the
// partner) and the order in which a round or a fill takes them
// (gavel_policy.hpp).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <tuple>
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
  std::size_t partner = kAlone;  // space sharing: the pair's other job (pos)
};

// Highest priority first; ties by allocation, then job index (a pair by its
// first job, then its second; a job alone before its pairs), then the job's
// faster type (so a job without an allocation yet starts where the next LP
// will most likely keep it, not on the lowest-numbered type).
//
// Calls take(pick) in that order until take returns false, and returns how
// many it took. A heap rather than a sort: a round or a fill stops once no
// GPUs are left for any job, which on a long queue is after a few of its
// picks. Every key is unique (it holds the job, partner and type), so the
// order is that of a full sort.
template <class Take>
inline std::size_t take_in_order(std::vector<Pick>& picks, const std::vector<JobIndex>& index_of, Take take) {
  auto key = [&](const Pick& p) {
    const JobIndex second = p.partner == kAlone ? 0 : index_of[p.partner] + 1;
    return std::make_tuple(-p.priority, -p.x, index_of[p.pos], second, -p.rate, p.type);
  };
  auto after = [&](const Pick& a, const Pick& b) { return key(b) < key(a); };
  auto end = picks.end();
  std::make_heap(picks.begin(), end, after);
  std::size_t taken = 0;
  while (end != picks.begin()) {
    std::pop_heap(picks.begin(), end, after);
    --end;
    ++taken;
    if (!take(*end)) break;
  }
  return taken;
}

}  // namespace vnsim::gavel_detail
