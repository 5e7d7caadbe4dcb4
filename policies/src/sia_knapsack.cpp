#include "sia_knapsack.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

namespace vnsim {
namespace {

// Each group's columns [first[g], first[g + 1]).
std::vector<std::size_t> group_starts(std::size_t groups, const std::vector<KnapsackColumn>& columns) {
  std::vector<std::size_t> first(groups + 1, columns.size());
  for (std::size_t col = columns.size(); col-- > 0;) first[columns[col].group] = col;
  for (std::size_t g = groups; g-- > 0;)
    if (first[g] > first[g + 1]) first[g] = first[g + 1];
  return first;
}

// The dynamic program over the GPUs used, on the whole problem it is given.
std::optional<std::vector<long>> solve_by_table(const std::vector<std::size_t>& members,
                                                const std::vector<KnapsackColumn>& columns, long capacity,
                                                double max_work, KnapsackWork* stats) {
  std::vector<long> count(columns.size(), 0);
  const std::vector<std::size_t> first = group_starts(members.size(), columns);
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
  if (stats != nullptr) {
    stats->table_jobs = jobs;
    stats->table_cells = work;
  }
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

// One step of a group's lower convex hull of (GPUs, cost), "none" = (0, 0)
// included: from hull point `level` - 1 to `level`, `weight` more GPUs at
// `slope` cost per GPU (< 0).
struct HullStep {
  double slope;
  std::size_t group;
  std::size_t level;
  long weight;
};

}  // namespace

std::optional<std::vector<long>> solve_multiple_choice_knapsack(const std::vector<std::size_t>& members,
                                                                const std::vector<KnapsackColumn>& columns,
                                                                long capacity, double max_work,
                                                                KnapsackWork* stats) {
  const std::size_t groups = members.size();
  const std::vector<std::size_t> first = group_starts(groups, columns);

  // Each group's lower hull (column indices; the first point is "none").
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::vector<std::size_t>> hull(groups);
  std::vector<HullStep> steps;
  auto weight_of = [&](std::size_t col) {
    return col == kNone ? 0L : static_cast<long>(columns[col].weight);
  };
  auto cost_of = [&](std::size_t col) { return col == kNone ? 0.0 : columns[col].cost; };
  for (std::size_t g = 0; g < groups; ++g) {
    if (members[g] == 0) continue;
    std::vector<std::size_t> order;
    for (std::size_t col = first[g]; col < first[g + 1]; ++col) order.push_back(col);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(columns[a].weight, columns[a].cost, a) <
             std::tie(columns[b].weight, columns[b].cost, b);
    });
    std::vector<std::size_t>& h = hull[g];
    h.push_back(kNone);
    for (std::size_t col : order) {
      if (!(cost_of(col) < cost_of(h.back())) || weight_of(col) == weight_of(h.back())) continue;
      // Pop points that lie on or above the chord to the new one.
      while (h.size() >= 2) {
        const std::size_t a = h[h.size() - 2];
        const std::size_t b = h.back();
        const double lhs = (cost_of(b) - cost_of(a)) * static_cast<double>(weight_of(col) - weight_of(a));
        const double rhs = (cost_of(col) - cost_of(a)) * static_cast<double>(weight_of(b) - weight_of(a));
        if (lhs < rhs) break;
        h.pop_back();
      }
      h.push_back(col);
    }
    for (std::size_t t = 1; t < h.size(); ++t) {
      const long dw = weight_of(h[t]) - weight_of(h[t - 1]);
      steps.push_back(HullStep{(cost_of(h[t]) - cost_of(h[t - 1])) / static_cast<double>(dw), g, t, dw});
    }
  }
  std::sort(steps.begin(), steps.end(), [](const HullStep& a, const HullStep& b) {
    return std::tie(a.slope, a.group, a.level) < std::tie(b.slope, b.group, b.level);
  });

  // The LP relaxation's price of a GPU (mu >= 0) and a greedy integer
  // solution (steps in slope order, each taken by as many of the group's
  // members at its lower point as fit) as the upper bound.
  double mu = 0;
  {
    long left = capacity;
    for (const HullStep& s : steps) {
      const long need = s.weight * static_cast<long>(members[s.group]);
      if (need > left) {
        mu = -s.slope;
        break;
      }
      left -= need;
    }
  }
  std::vector<std::vector<long>> at(groups);  // members per hull point
  for (std::size_t g = 0; g < groups; ++g)
    if (!hull[g].empty()) {
      at[g].assign(hull[g].size(), 0);
      at[g][0] = static_cast<long>(members[g]);
    }
  long left = capacity;
  for (const HullStep& s : steps) {
    const long take = std::min(at[s.group][s.level - 1], left / s.weight);
    at[s.group][s.level - 1] -= take;
    at[s.group][s.level] += take;
    left -= take * s.weight;
  }
  double upper = 0;
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t t = 1; t < hull[g].size(); ++t)
      upper += static_cast<double>(at[g][t]) * cost_of(hull[g][t]);
  // The Lagrangian bound: no solution costs less than
  // lower = sum_g members_g min_j (cost_j + mu weight_j) - mu capacity, and
  // none with one job of g on column j less than lower + (its reduced cost).
  std::vector<double> least(groups, 0.0);
  double lower = -mu * static_cast<double>(capacity);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t col = first[g]; col < first[g + 1]; ++col)
      least[g] = std::min(least[g], columns[col].cost + mu * columns[col].weight);
    lower += static_cast<double>(members[g]) * least[g];
  }
  const double slack = 1e-9 * (1 + std::abs(lower) + std::abs(upper));
  auto kept = [&](std::size_t g, std::size_t col) {
    return lower + (cost_of(col) + mu * static_cast<double>(weight_of(col)) - least[g]) <= upper + slack;
  };
  std::vector<std::size_t> sub_members;
  std::vector<KnapsackColumn> sub_columns;
  std::vector<std::size_t> origin;  // sub column -> column
  std::vector<std::size_t> fixed(groups, kNone);
  long room = capacity;
  for (std::size_t g = 0; g < groups; ++g) {
    if (members[g] == 0) continue;
    std::vector<std::size_t> alive;
    for (std::size_t col = first[g]; col < first[g + 1]; ++col)
      if (kept(g, col)) alive.push_back(col);
    if (!kept(g, kNone) && alive.size() == 1) {
      fixed[g] = alive.front();
      room -= static_cast<long>(members[g]) * columns[fixed[g]].weight;
      continue;
    }
    if (alive.empty()) continue;  // every optimum leaves its members out
    for (std::size_t col : alive) {
      sub_columns.push_back(KnapsackColumn{sub_members.size(), columns[col].weight, columns[col].cost});
      origin.push_back(col);
    }
    sub_members.push_back(members[g]);
  }
  if (stats != nullptr) stats->groups_in_table = sub_members.size();
  if (room < 0) return solve_by_table(members, columns, capacity, max_work, stats);  // rounding; not seen
  auto sub = solve_by_table(sub_members, sub_columns, room, max_work, stats);
  if (!sub) return std::nullopt;
  std::vector<long> count(columns.size(), 0);
  for (std::size_t g = 0; g < groups; ++g)
    if (fixed[g] != kNone) count[fixed[g]] = static_cast<long>(members[g]);
  for (std::size_t k = 0; k < sub->size(); ++k) count[origin[k]] += (*sub)[k];
  return count;
}

}  // namespace vnsim
