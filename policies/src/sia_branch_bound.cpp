#include "sia_branch_bound.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>

namespace vnsim {
namespace {

using Prices = std::array<double, 2>;

// A column's bounds after a branch: later changes of a column override
// earlier ones (each is a narrowing).
struct Change {
  std::size_t column;
  int lo;
  int hi;
};

struct Node {
  double bound;  // the parent's: no allocation of the subtree costs less
  Prices mu;     // the parent's prices: the children's warm start
  std::vector<Change> changes;
};

class BranchBound {
 public:
  BranchBound(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
              const std::vector<int>& capacity)
      : members_(members), columns_(columns), capacity_(capacity), types_(capacity.size()) {
    first_.assign(members.size() + 1, columns.size());
    for (std::size_t col = columns.size(); col-- > 0;) first_[columns[col].group] = col;
    for (std::size_t g = members.size(); g-- > 0;)
      if (first_[g] == columns.size()) first_[g] = first_[g + 1];
    root_hi_.resize(columns.size());
    for (std::size_t col = 0; col < columns.size(); ++col) {
      const PricedColumn& c = columns[col];
      root_hi_[col] = static_cast<int>(std::min<long>(static_cast<long>(members[c.group]),
                                                      capacity[static_cast<std::size_t>(c.type)] / c.gpus));
    }
    // No price above the largest |cost| per GPU raises L: every reduced
    // cost is >= 0 there.
    for (const PricedColumn& c : columns) top_ = std::max(top_, std::abs(c.cost) + 1);
    reduced_.resize(columns.size());
    x_.resize(columns.size());
  }

  long evaluations = 0;

  // The node's bounds from the root's and its changes; false where the
  // lower bounds alone break a group's size or a capacity.
  bool apply(const std::vector<Change>& changes) {
    lo_.assign(columns_.size(), 0);
    hi_ = root_hi_;
    for (const Change& ch : changes) {
      lo_[ch.column] = ch.lo;
      hi_[ch.column] = ch.hi;
    }
    std::array<long, 2> used{0, 0};
    for (std::size_t g = 0; g + 1 < first_.size(); ++g) {
      long taken = 0;
      for (std::size_t col = first_[g]; col < first_[g + 1]; ++col) {
        if (lo_[col] > hi_[col]) return false;
        taken += lo_[col];
        used[static_cast<std::size_t>(columns_[col].type)] +=
            static_cast<long>(lo_[col]) * columns_[col].gpus;
      }
      if (taken > static_cast<long>(members_[g])) return false;
    }
    for (std::size_t t = 0; t < types_; ++t)
      if (used[t] > capacity_[t]) return false;
    return true;
  }

  // L(mu) at the current bounds; x_ gets a minimiser and used_ its GPUs.
  // One pass over a group's columns prices them, takes the lower bounds and
  // finds the cheapest column with room; a group with room left after it
  // is rescanned.
  double at(const Prices& mu) {
    ++evaluations;
    double value = 0;
    used_ = {0, 0};
    for (std::size_t t = 0; t < types_; ++t) value -= mu[t] * capacity_[t];
    const std::size_t none = columns_.size();
    for (std::size_t g = 0; g + 1 < first_.size(); ++g) {
      long room = static_cast<long>(members_[g]);
      std::size_t best = none;
      for (std::size_t col = first_[g]; col < first_[g + 1]; ++col) {
        const PricedColumn& c = columns_[col];
        const double reduced = c.cost + mu[static_cast<std::size_t>(c.type)] * c.gpus;
        reduced_[col] = reduced;
        x_[col] = lo_[col];
        if (lo_[col] > 0) {
          room -= lo_[col];
          value += lo_[col] * reduced;
          used_[static_cast<std::size_t>(c.type)] += static_cast<long>(lo_[col]) * c.gpus;
        }
        if (x_[col] < hi_[col] && reduced < 0 && (best == none || reduced < reduced_[best])) best = col;
      }
      while (room > 0 && best != none) {
        const long take = std::min<long>(room, hi_[best] - x_[best]);
        x_[best] += static_cast<int>(take);
        room -= take;
        value += static_cast<double>(take) * reduced_[best];
        used_[static_cast<std::size_t>(columns_[best].type)] += take * columns_[best].gpus;
        if (room == 0) break;
        // The cheapest column of negative reduced cost with room, again.
        best = none;
        for (std::size_t col = first_[g]; col < first_[g + 1]; ++col)
          if (x_[col] < hi_[col] && reduced_[col] < 0 && (best == none || reduced_[col] < reduced_[best]))
            best = col;
      }
    }
    return value;
  }

  // max over mu >= 0 of L, the node's LP bound: an exact line search over
  // mu[1] inside one over mu[0], started from mu (the parent's prices); mu
  // gets the maximiser, x_ and used_ a minimiser there. It stops early at
  // prices where L reaches `stop` (the node is pruned there).
  double ascend(Prices& mu, double stop) {
    stop_ = stop;
    double inner_guess = mu[1];
    auto over_mu1 = [&](double mu0) {
      return maximise(
          [&](double s) {
            const double f = at(Prices{mu0, s});
            return Cut{s, f, excess(1), excess(0), 0};
          },
          inner_guess);
    };
    const Cut best = maximise(
        [&](double s) {
          if (types_ == 1) return Cut{s, at(Prices{s, 0}), excess(0), 0, 0};
          const Cut inner = over_mu1(s);
          inner_guess = inner.s;
          // phi(mu0) = max over mu1 of L: its supergradient is the mu0 part
          // of one of L's with no mu1 part (Danskin).
          return Cut{s, inner.f, inner.h, 0, inner.s};
        },
        mu[0]);
    mu = Prices{best.s, best.other};
    return at(mu);
  }

  std::vector<std::size_t> first_;  // group g's columns: [first_[g], first_[g + 1])
  std::vector<int> lo_, hi_, x_;
  std::vector<double> reduced_;
  std::array<long, 2> used_{0, 0};

 private:
  // A point of a line search: L = f at s, with supergradient g along s and
  // h across (the other price's), `other` the other price where it was
  // maximised.
  struct Cut {
    double s, f, g, h, other;
  };

  double excess(std::size_t t) const { return static_cast<double>(used_[t] - capacity_[t]); }

  // The maximum over s in [0, top] of a concave piecewise-linear f from s0,
  // by tangent intersection (Kelley's cutting planes in one dimension: each
  // step ends at a kink or removes one, so it is finite). Where the maximum
  // is a kink between the tangents at a and b, its h is their mix whose g
  // is 0, a supergradient of the maximum over s as a function of the other
  // price.
  template <class Eval>
  Cut maximise(Eval eval, double s0) {
    const Cut here = eval(s0);
    if (here.g == 0 || here.f >= stop_) return here;
    // A bracket [a, b] with a.g > 0 > b.g, by steps from s0 that grow
    // fourfold: the parent's prices are near the child's.
    Cut a = here, b = here;
    for (double step = 1e-4 * top_;; step *= 4) {
      const double s = here.g > 0 ? std::min(top_, a.s + step) : std::max(0.0, b.s - step);
      if (s == (here.g > 0 ? a.s : b.s)) return here.g > 0 ? a : b;  // the box's edge is the maximum
      const Cut c = eval(s);
      if (c.f >= stop_) return c;
      if (here.g > 0) {
        if (c.g > 0) {
          a = c;
          continue;
        }
        b = c;
      } else {
        if (c.g < 0) {
          b = c;
          continue;
        }
        a = c;
      }
      if (c.g == 0) return c;
      break;
    }
    Cut best = a.f >= b.f ? a : b;
    for (int it = 0; it < 40 && b.s - a.s > 1e-14 * top_; ++it) {
      const double s = std::min(std::max((b.f - a.f + a.g * a.s - b.g * b.s) / (a.g - b.g), a.s), b.s);
      Cut c = eval(s);
      if (c.f >= stop_) return c;
      const double tangent = a.f + a.g * (s - a.s);
      if (c.f >= tangent - 1e-12 * (1 + std::abs(tangent))) {
        const double mix = -b.g / (a.g - b.g);
        c.h = mix * a.h + (1 - mix) * b.h;
        return c;
      }
      if (c.f > best.f) best = c;
      if (c.g > 0)
        a = c;
      else if (c.g < 0)
        b = c;
      else
        return c;
    }
    return best;
  }

  const std::vector<std::size_t>& members_;
  const std::vector<PricedColumn>& columns_;
  const std::vector<int>& capacity_;
  std::size_t types_;
  std::vector<int> root_hi_;
  double top_ = 1;
  double stop_ = std::numeric_limits<double>::infinity();
};

// The column and split point b of the branch (x_c <= b - 1 or x_c >= b) at
// the relaxation's minimiser: the move of one job that costs the least
// reduced cost and goes towards the capacity the minimiser breaks (or, where
// it keeps every one, the priced type it leaves room on). kNoBranch where no
// move does.
struct Branch {
  std::size_t column;
  int split;
};
constexpr std::size_t kNoBranch = static_cast<std::size_t>(-1);

Branch choose_branch(const BranchBound& bb, const std::vector<std::size_t>& members,
                     const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                     const Prices& mu) {
  std::size_t type = 0;
  int direction = 0;  // -1: free GPUs of `type`; +1: use more of it
  double worst = 0;
  for (std::size_t t = 0; t < capacity.size(); ++t)
    if (bb.used_[t] - capacity[t] > worst)
      worst = static_cast<double>(bb.used_[t] - capacity[t]), type = t, direction = -1;
  if (direction == 0) {
    for (std::size_t t = 0; t < capacity.size(); ++t) {
      const double priced = mu[t] * static_cast<double>(capacity[t] - bb.used_[t]);
      if (priced > std::max(worst, 1e-12)) worst = priced, type = t, direction = 1;
    }
  }
  Branch best{kNoBranch, 0};
  if (direction == 0) return best;
  double least = std::numeric_limits<double>::infinity();
  auto gpus_on = [&](std::size_t col) {
    return static_cast<std::size_t>(columns[col].type) == type ? columns[col].gpus : 0;
  };
  auto offer = [&](double margin, int delta, std::size_t col, int split) {
    if (direction * delta > 0 && margin < least) least = margin, best = Branch{col, split};
  };
  for (std::size_t g = 0; g < members.size(); ++g) {
    const std::size_t begin = bb.first_[g], end = bb.first_[g + 1];
    long taken = 0;
    for (std::size_t col = begin; col < end; ++col) taken += bb.x_[col];
    for (std::size_t j = begin; j < end; ++j) {
      // A job added on j where the group has room.
      if (taken < static_cast<long>(members[g]) && bb.x_[j] < bb.hi_[j])
        offer(std::max(0.0, bb.reduced_[j]), gpus_on(j), j, bb.x_[j] + 1);
      if (bb.x_[j] <= bb.lo_[j]) continue;
      // A job of j dropped, or moved to k.
      offer(std::max(0.0, -bb.reduced_[j]), -gpus_on(j), j, bb.x_[j]);
      for (std::size_t k = begin; k < end; ++k)
        if (k != j && bb.x_[k] < bb.hi_[k])
          offer(std::max(0.0, bb.reduced_[k] - bb.reduced_[j]), gpus_on(k) - gpus_on(j), j, bb.x_[j]);
    }
  }
  return best;
}

}  // namespace

BelowTarget gap_branch_and_bound(const std::vector<std::size_t>& members,
                                 const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                                 double start_cost, double gap, long max_nodes, std::vector<long>& counts,
                                 BranchBoundWork* work) {
  if (capacity.empty() || capacity.size() > 2) return BelowTarget::kGaveUp;
  BranchBound bb(members, columns, capacity);
  double incumbent = start_cost;
  bool improved = false;
  auto threshold = [&] { return incumbent - gap * std::abs(incumbent); };
  std::vector<Node> nodes;
  nodes.push_back(Node{-std::numeric_limits<double>::infinity(), Prices{0, 0}, {}});
  // Cheapest bound first; of equal bounds the newest (depth first).
  auto later = [&](std::size_t a, std::size_t b) {
    return nodes[a].bound != nodes[b].bound ? nodes[a].bound > nodes[b].bound : a < b;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> open(later);
  open.push(0);
  long done = 0;
  BelowTarget result = BelowTarget::kNone;
  while (!open.empty()) {
    const std::size_t id = open.top();
    open.pop();
    if (nodes[id].bound >= threshold()) break;  // every open node is within the gap
    if (++done > max_nodes) {
      result = BelowTarget::kGaveUp;  // as CBC at its node cap: the best found
      break;
    }
    if (!bb.apply(nodes[id].changes)) continue;
    Prices mu = nodes[id].mu;
    const double bound = bb.ascend(mu, threshold());
    if (id == 0 && work != nullptr) work->root_bound = bound;
    if (bound >= threshold()) continue;
    bool fits = true;
    for (std::size_t t = 0; t < capacity.size(); ++t) fits = fits && bb.used_[t] <= capacity[t];
    if (fits) {
      double cost = 0;
      for (std::size_t col = 0; col < columns.size(); ++col) cost += bb.x_[col] * columns[col].cost;
      if (cost < incumbent - 1e-9) {
        incumbent = cost;
        improved = true;
        counts.assign(bb.x_.begin(), bb.x_.end());
      }
      if (bound >= threshold()) continue;
    }
    const Branch branch = choose_branch(bb, members, columns, capacity, mu);
    if (branch.column == kNoBranch) {
      // The minimiser fits and leaves no priced GPU idle: it is the node's
      // optimum, taken above where it is cheaper.
      if (fits) continue;
      result = BelowTarget::kGaveUp;
      break;
    }
    const std::size_t col = branch.column;
    for (int side = 0; side < 2; ++side) {
      Node child{bound, mu, nodes[id].changes};
      child.changes.push_back(side == 0 ? Change{col, bb.lo_[col], branch.split - 1}
                                        : Change{col, branch.split, bb.hi_[col]});
      nodes.push_back(std::move(child));
      open.push(nodes.size() - 1);
    }
  }
  if (work != nullptr) {
    work->nodes = std::min(done, max_nodes);
    work->evaluations = bb.evaluations;
  }
  if (improved) return BelowTarget::kFound;
  return result;
}

}  // namespace vnsim
