#include "sia_knapsack.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace vnsim {

std::optional<std::vector<long>> solve_multiple_choice_knapsack(const std::vector<std::size_t>& members,
                                                                const std::vector<KnapsackColumn>& columns,
                                                                long capacity, double max_work) {
  std::vector<long> count(columns.size(), 0);
  // Each group's columns [first[g], first[g + 1]).
  std::vector<std::size_t> first(members.size() + 1, columns.size());
  for (std::size_t col = columns.size(); col-- > 0;) first[columns[col].group] = col;
  for (std::size_t g = members.size(); g-- > 0;)
    if (first[g] > first[g + 1]) first[g] = first[g + 1];
  // Weights past the most the jobs could take together never bind.
  long most = 0;
  double work = 0;
  std::size_t jobs = 0;
  for (std::size_t g = 0; g < members.size(); ++g) {
    long heaviest = 0;
    for (std::size_t col = first[g]; col < first[g + 1]; ++col)
      heaviest = std::max<long>(heaviest, columns[col].weight);
    if (heaviest == 0) continue;
    most += heaviest * static_cast<long>(members[g]);
    jobs += members[g];
    work += static_cast<double>(members[g]) * static_cast<double>(first[g + 1] - first[g]);
  }
  const long cap = std::max(0L, std::min(capacity, most));
  work *= static_cast<double>(cap + 1);
  if (work > max_work) return std::nullopt;
  if (jobs == 0 || cap == 0) return count;

  // best[w]: the least cost of the jobs so far within w GPUs (every cost is
  // negative or the column is absent, so "none" is the 0 start). pick[job]
  // [w]: the column (offset in its group, + 1; 0 = none) that reached it.
  // A group has at most one column per configuration, so offsets fit 16 bits
  // (solve_sia_ilp checks); the table is 2 bytes x jobs x (capacity + 1),
  // at most twice max_work.
  const auto width = static_cast<std::size_t>(cap + 1);
  std::vector<double> best(width, 0.0);
  std::vector<double> next(width);
  std::vector<std::uint16_t> pick(jobs * width, 0);
  std::vector<std::size_t> group_of_job;
  group_of_job.reserve(jobs);
  std::size_t job = 0;
  for (std::size_t g = 0; g < members.size(); ++g) {
    if (first[g] == first[g + 1]) continue;
    for (std::size_t k = 0; k < members[g]; ++k, ++job) {
      group_of_job.push_back(g);
      std::uint16_t* row = pick.data() + job * width;
      next = best;
      for (std::size_t col = first[g]; col < first[g + 1]; ++col) {
        const auto w = static_cast<std::size_t>(columns[col].weight);
        if (w > width - 1) continue;
        const double c = columns[col].cost;
        const auto tag = static_cast<std::uint16_t>(col - first[g] + 1);
        for (std::size_t u = w; u < width; ++u) {
          const double candidate = best[u - w] + c;
          if (candidate < next[u]) {
            next[u] = candidate;
            row[u] = tag;
          }
        }
      }
      best.swap(next);
    }
  }
  // Walk back from the full capacity.
  std::size_t u = width - 1;
  for (std::size_t j = jobs; j-- > 0;) {
    const std::uint16_t tag = pick[j * width + u];
    if (tag == 0) continue;
    const std::size_t col = first[group_of_job[j]] + tag - 1;
    ++count[col];
    u -= static_cast<std::size_t>(columns[col].weight);
  }
  return count;
}

}  // namespace vnsim
