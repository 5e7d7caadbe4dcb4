#include "sia_start_search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace vnsim {
namespace {

using Prices = std::array<double, 2>;

// L(mu) and a subgradient (sia_certificate.hpp).
struct Relaxation {
  const std::vector<std::size_t>& members;
  const std::vector<PricedColumn>& columns;
  const std::vector<int>& capacity;

  double at(const Prices& mu, Prices& slope) const {
    return lagrangian_bound(members, columns, capacity, mu, &slope);
  }
};

// Prices with a high L: bisection on the slope's sign along each direction
// in turn (L is concave, so its slope along a line falls), twice over.
// Returns the best L seen, its prices in `best`.
double good_prices(const Relaxation& relax, double top, Prices& best) {
  Prices slope{};
  best = {0, 0};
  double best_value = relax.at(best, slope);
  const std::array<Prices, 4> directions{Prices{1, 0}, Prices{0, 1}, Prices{1, 1}, Prices{1, -1}};
  for (int sweep = 0; sweep < 2; ++sweep)
    for (const Prices& d : directions) {
      // s with best + s d in [0, top]^2.
      double lo = -std::numeric_limits<double>::infinity();
      double hi = std::numeric_limits<double>::infinity();
      for (std::size_t t = 0; t < 2; ++t) {
        if (d[t] == 0) continue;
        const double a = (0 - best[t]) / d[t];
        const double b = (top - best[t]) / d[t];
        lo = std::max(lo, std::min(a, b));
        hi = std::min(hi, std::max(a, b));
      }
      if (!(hi > lo)) continue;
      const Prices from = best;
      for (int it = 0; it < 48 && hi - lo > 1e-12 * top; ++it) {
        const double s = 0.5 * (lo + hi);
        const Prices mu{std::max(0.0, from[0] + s * d[0]), std::max(0.0, from[1] + s * d[1])};
        const double value = relax.at(mu, slope);
        if (value > best_value) {
          best_value = value;
          best = mu;
        }
        if (slope[0] * d[0] + slope[1] * d[1] > 0)
          lo = s;
        else
          hi = s;
      }
    }
  return best_value;
}

struct Option {
  double reduced;  // per job, >= 0
  double cost;
  int type;  // -1: none
  int gpus;
  std::size_t column;  // kNoColumn: none
};

constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

struct Search {
  const std::vector<std::vector<Option>>& options;  // per group, by reduced cost
  const std::vector<std::size_t>& slot_group;       // one slot per job to place
  std::array<long, 2> capacity;
  double bound;   // L
  double budget;  // target - L
  double target;
  long max_nodes;
  bool optimise;  // false: stop at the first allocation below the target
  double gap;     // optimise: each allocation found lowers the target to its cost minus this fraction
  long nodes = 0;
  std::vector<std::size_t> pick;  // per slot: its option
  std::vector<std::size_t> best;  // optimise: the cheapest pick found

  // kNone when no completion of slots [k, end) costs less than the target.
  BelowTarget from(std::size_t k, double reduced, double cost, std::array<long, 2> used) {
    if (k == slot_group.size()) {
      if (!(cost < target)) return BelowTarget::kNone;
      if (!optimise) return BelowTarget::kFound;
      // Only a strictly cheaper one replaces it: the first of equal ones in
      // the search's order stays. With a gap, only one cheaper by more than
      // the gap, so the last one found is within the gap of every allocation.
      best = pick;
      target = gap > 0 ? cost - gap * std::abs(cost) : cost - 1e-9;
      budget = target - bound;
      return BelowTarget::kNone;
    }
    if (++nodes > max_nodes) return BelowTarget::kGaveUp;
    const std::size_t g = slot_group[k];
    // Jobs of one group are interchangeable: their options in ascending order.
    const std::size_t first = k > 0 && slot_group[k - 1] == g ? pick[k - 1] : 0;
    const std::vector<Option>& own = options[g];
    for (std::size_t o = first; o < own.size(); ++o) {
      const Option& opt = own[o];
      if (reduced + opt.reduced >= budget) break;
      std::array<long, 2> next = used;
      if (opt.type >= 0) {
        next[static_cast<std::size_t>(opt.type)] += opt.gpus;
        if (next[static_cast<std::size_t>(opt.type)] > capacity[static_cast<std::size_t>(opt.type)]) continue;
      }
      pick[k] = o;
      const BelowTarget below = from(k + 1, reduced + opt.reduced, cost + opt.cost, next);
      if (below != BelowTarget::kNone) return below;
    }
    return BelowTarget::kNone;
  }
};

}  // namespace

namespace {

// The search of both entry points; `counts` (optimise) gets the cheapest
// allocation below the target, per column, when one is found.
BelowTarget search(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                   const std::vector<int>& capacity, double target, long max_nodes, StartSearchWork* work,
                   std::vector<long>* counts, double gap = 0) {
  if (capacity.empty() || capacity.size() > 2) return BelowTarget::kGaveUp;
  if (columns.empty()) {
    if (counts != nullptr) counts->clear();
    return 0 < target ? BelowTarget::kFound : BelowTarget::kNone;
  }
  const Relaxation relax{members, columns, capacity};
  // No price above the largest |cost| per GPU raises L (every column's
  // reduced cost is >= 0 there).
  double top = 1;
  for (const PricedColumn& c : columns) top = std::max(top, std::abs(c.cost) + 1);
  Prices mu{};
  const double bound = good_prices(relax, top, mu);
  if (work != nullptr) work->bound = bound;
  const double budget = target - bound;
  if (!(budget > 0)) return BelowTarget::kNone;

  // Each group's options (none and its columns) whose reduced cost is below
  // the budget; a group left with one option takes it for all its jobs.
  std::vector<std::vector<Option>> options(members.size());
  std::array<long, 2> used{0, 0};
  const std::array<long, 2> room{capacity[0], capacity.size() > 1 ? capacity[1] : 0};
  double fixed_cost = 0;
  std::vector<std::size_t> open;
  std::vector<std::size_t> fixed;
  for (std::size_t col = 0; col < columns.size();) {
    const std::size_t g = columns[col].group;
    std::vector<Option>& own = options[g];
    own.push_back(Option{0, 0, -1, 0, kNoColumn});
    for (; col < columns.size() && columns[col].group == g; ++col) {
      const PricedColumn& c = columns[col];
      own.push_back(
          Option{c.cost + mu[static_cast<std::size_t>(c.type)] * c.gpus, c.cost, c.type, c.gpus, col});
    }
    double least = 0;
    for (const Option& o : own) least = std::min(least, o.reduced);
    for (Option& o : own) o.reduced = std::max(0.0, o.reduced - least);
    std::stable_sort(own.begin(), own.end(),
                     [](const Option& a, const Option& b) { return a.reduced < b.reduced; });
    own.erase(std::find_if(own.begin(), own.end(), [&](const Option& o) { return o.reduced >= budget; }),
              own.end());
    if (members[g] == 0) continue;
    if (own.size() == 1) {
      const Option& only = own.front();
      fixed.push_back(g);
      if (only.type >= 0)
        used[static_cast<std::size_t>(only.type)] += static_cast<long>(members[g]) * only.gpus;
      fixed_cost += static_cast<double>(members[g]) * only.cost;
    } else {
      open.push_back(g);
    }
  }
  if (used[0] > room[0] || used[1] > room[1]) return BelowTarget::kNone;
  // Groups whose options take the most GPUs first: the capacities cut early.
  auto widest = [&](std::size_t g) {
    int w = 0;
    for (const Option& o : options[g]) w = std::max(w, o.gpus);
    return w;
  };
  std::stable_sort(open.begin(), open.end(),
                   [&](std::size_t a, std::size_t b) { return widest(a) > widest(b); });
  std::vector<std::size_t> slot_group;
  for (std::size_t g : open) slot_group.insert(slot_group.end(), members[g], g);
  Search run{options,
             slot_group,
             room,
             bound,
             budget,
             target,
             max_nodes,
             counts != nullptr,
             gap,
             0,
             std::vector<std::size_t>(slot_group.size(), 0),
             {}};
  const BelowTarget below = run.from(0, 0, fixed_cost, used);
  if (work != nullptr) work->nodes = run.nodes;
  if (below == BelowTarget::kGaveUp || counts == nullptr) return below;
  // Optimise: the cheapest allocation found, if any was below the target.
  if (!(run.target < target)) return BelowTarget::kNone;
  counts->assign(columns.size(), 0);
  for (std::size_t g : fixed)
    if (options[g].front().column != kNoColumn)
      (*counts)[options[g].front().column] += static_cast<long>(members[g]);
  for (std::size_t k = 0; k < slot_group.size(); ++k) {
    const Option& o = options[slot_group[k]][run.best[k]];
    if (o.column != kNoColumn) (*counts)[o.column] += 1;
  }
  return BelowTarget::kFound;
}

}  // namespace

BelowTarget allocation_below(const std::vector<std::size_t>& members,
                             const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                             double target, long max_nodes, StartSearchWork* work) {
  return search(members, columns, capacity, target, max_nodes, work, nullptr);
}

BelowTarget cheapest_below(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                           const std::vector<int>& capacity, double target, long max_nodes,
                           std::vector<long>& counts, StartSearchWork* work) {
  return search(members, columns, capacity, target, max_nodes, work, &counts);
}

BelowTarget within_gap_below(const std::vector<std::size_t>& members,
                             const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                             double start_cost, double gap, long max_nodes, std::vector<long>& counts,
                             StartSearchWork* work) {
  return search(members, columns, capacity, start_cost - gap * std::abs(start_cost), max_nodes, work, &counts,
                gap);
}

}  // namespace vnsim
