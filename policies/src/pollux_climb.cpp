#include "vnsim/policies/pollux_climb.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <queue>

#include "nodes_by_free.hpp"

namespace vnsim {
namespace {

constexpr double kSpeedupFloor = 1e-3;  // as in the search's fitness

using Row = std::vector<std::pair<NodeId, int>>;  // sorted by node

int gpus_of(const Row& row) {
  int k = 0;
  for (const auto& [node, count] : row) k += count;
  return k;
}

struct Move {
  Row row;
  double value = 0;  // the job's objective term afterwards
  double gain = 0;   // objective gained per GPU added
};

struct Entry {
  double gain;
  std::size_t job;
  // Largest gain on top; equal gains: the earlier job (deterministic).
  bool operator<(const Entry& o) const { return gain < o.gain || (gain == o.gain && job > o.job); }
};

class Climb {
 public:
  explicit Climb(const ClimbProblem& problem)
      : p_(problem),
        rows_(problem.jobs.size()),
        value_(problem.jobs.size(), term(0)),
        pending_(problem.jobs.size()),
        pending_stamp_(problem.jobs.size(), 0),
        free_(problem.capacity),
        spanned_by_(problem.capacity.size(), kNone),
        by_free_(free_) {
    for (const ClimbJob& job : problem.jobs) {
      Row current = job.current;
      std::sort(current.begin(), current.end());
      current_.push_back(std::move(current));
    }
  }

  std::vector<Row> run() {
    for (std::size_t j = 0; j < rows_.size(); ++j) offer(j);
    while (!heap_.empty()) {
      const std::size_t j = heap_.top().job;
      heap_.pop();
      // Computed before the last move changed the free GPUs: recompute, and
      // wait behind a better job if it fell below it.
      if (pending_stamp_[j] != moves_) {
        std::optional<Move> m = best_move(j);
        if (!m) continue;
        pending_[j] = std::move(*m);
        pending_stamp_[j] = moves_;
        if (!heap_.empty() && pending_[j].gain < heap_.top().gain) {
          heap_.push({pending_[j].gain, j});
          continue;
        }
      }
      apply(j, pending_[j]);
      offer(j);
    }
    return rows_;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // The job's term of the objective: maximising the generalised mean is
  // maximising the sum of these.
  double term(double speedup) const {
    const double s = speedup + kSpeedupFloor;
    if (p_.p == -1) return -1.0 / s;
    if (p_.p == 0) return std::log(s);
    return p_.p < 0 ? -std::pow(s, p_.p) : std::pow(s, p_.p);
  }

  void offer(std::size_t j) {
    std::optional<Move> m = best_move(j);
    if (!m) return;
    pending_[j] = std::move(*m);
    pending_stamp_[j] = moves_;
    heap_.push({pending_[j].gain, j});
  }

  // Whether no other job spanning several nodes holds `node`.
  bool unspanned(NodeId node, std::size_t j) const {
    return spanned_by_[static_cast<std::size_t>(node)] == kNone ||
           spanned_by_[static_cast<std::size_t>(node)] == j;
  }

  int free_on(NodeId node) const { return free_[static_cast<std::size_t>(node)]; }

  void consider(std::size_t j, Row row, std::optional<Move>& best) const {
    const int added = gpus_of(row) - gpus_of(rows_[j]);
    if (added <= 0) return;
    double s = p_.speedup(j, static_cast<int>(row.size()), gpus_of(row));
    if (!(s > 0)) return;
    if (!current_[j].empty() && row != current_[j]) s *= p_.jobs[j].restart_factor;
    const double value = term(s);
    // A job's first GPUs are worth the same whatever their number: per GPU,
    // a job's current allocation would always lose to one GPU elsewhere,
    // which restarts it.
    const double gain = (value - value_[j]) / (rows_[j].empty() ? 1 : added);
    if (!(gain > 0) || (best && !(gain > best->gain))) return;
    best = Move{std::move(row), value, gain};
  }

  std::optional<Move> best_move(std::size_t j) const {
    const Row& row = rows_[j];
    const ClimbJob& job = p_.jobs[j];
    const int gpus = gpus_of(row);
    std::optional<Move> best;
    // Its current GPUs back: no restart.
    const Row& current = current_[j];
    if (row.empty() && !current.empty() && static_cast<int>(current.size()) <= p_.max_nodes &&
        gpus_of(current) <= job.max_gpus) {
      bool fits = true;
      for (const auto& [node, count] : current)
        fits = fits && free_on(node) >= count && (current.size() == 1 || unspanned(node, j));
      if (fits) consider(j, current, best);
    }
    if (gpus >= job.max_gpus) return best;
    if (row.empty()) {
      if (const auto roomiest = by_free_.first([](int, NodeId) { return true; }))
        consider(j, Row{{roomiest->second, 1}}, best);
      return best;
    }
    // One more GPU on the roomiest node it holds, or all its free GPUs: a
    // running job's first step off its current GPUs pays the whole restart
    // factor, which one GPU may not be worth.
    std::size_t roomiest = row.size();
    for (std::size_t i = 0; i < row.size(); ++i)
      if (free_on(row[i].first) > 0 &&
          (roomiest == row.size() || free_on(row[i].first) > free_on(row[roomiest].first)))
        roomiest = i;
    if (roomiest < row.size()) {
      Row grown = row;
      ++grown[roomiest].second;
      consider(j, grown, best);
      grown[roomiest].second =
          row[roomiest].second + std::min(free_on(row[roomiest].first), job.max_gpus - gpus);
      consider(j, std::move(grown), best);
    }
    // On one node: one more GPU on the roomiest other node, if it has room.
    if (row.size() == 1) {
      const NodeId own = row[0].first;
      if (const auto other = by_free_.first([own](int, NodeId node) { return node != own; }))
        if (other->first > row[0].second) consider(j, Row{{other->second, row[0].second + 1}}, best);
    }
    // Spread onto the roomiest node no other multi-node job holds, with as
    // many of its free GPUs as the job may take.
    if (static_cast<int>(row.size()) < p_.max_nodes &&
        std::all_of(row.begin(), row.end(), [&](const auto& e) { return unspanned(e.first, j); })) {
      const auto free_node = by_free_.first([&](int, NodeId node) {
        return unspanned(node, j) &&
               std::none_of(row.begin(), row.end(), [node](const auto& e) { return e.first == node; });
      });
      if (free_node) {
        Row spread = row;
        spread.emplace_back(free_node->second, std::min(free_node->first, job.max_gpus - gpus));
        std::sort(spread.begin(), spread.end());
        consider(j, std::move(spread), best);
      }
    }
    return best;
  }

  void set_free(NodeId node, int value) {
    int& f = free_[static_cast<std::size_t>(node)];
    by_free_.change(node, f, value);
    f = value;
  }

  void apply(std::size_t j, const Move& m) {
    Row& row = rows_[j];
    for (const auto& [node, count] : row) {
      set_free(node, free_on(node) + count);
      if (row.size() > 1) spanned_by_[static_cast<std::size_t>(node)] = kNone;
    }
    row = m.row;
    for (const auto& [node, count] : row) {
      set_free(node, free_on(node) - count);
      if (row.size() > 1) spanned_by_[static_cast<std::size_t>(node)] = j;
    }
    value_[j] = m.value;
    ++moves_;
  }

  const ClimbProblem& p_;
  std::vector<Row> rows_;
  std::vector<Row> current_;
  std::vector<double> value_;
  std::vector<Move> pending_;  // each job's best move when last computed
  std::vector<std::size_t> pending_stamp_;
  std::size_t moves_ = 0;
  std::vector<int> free_;
  std::vector<std::size_t> spanned_by_;  // the multi-node job on each node
  NodesByFree by_free_;                  // nodes with room, most free first
  std::priority_queue<Entry> heap_;
};

}  // namespace

std::vector<std::vector<std::pair<NodeId, int>>> climb_allocation(const ClimbProblem& problem) {
  return Climb(problem).run();
}

}  // namespace vnsim
