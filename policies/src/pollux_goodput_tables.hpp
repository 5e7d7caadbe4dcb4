#pragma once
// Goodput tables that Pollux's search reads its speedups from, kept from
// round to round: per (model, what its goodput reads of a job's progress),
// the goodput on every (GPU type, nodes, GPUs) a search has asked about,
// filled lazily. What a goodput reads of the progress is the epoch of a
// per-batch noise profile, nothing without a profile, the exact progress
// otherwise (GoodputEstimator::best, fixed_batch_goodput); without adaptive
// batch, the job's own batch too. Jobs of one model in the same epoch share
// a table, and every job of a model passes through the same epochs, so most
// cells a round's search reads were priced earlier, and each read is an
// index instead of the estimator's memo look-up by model and GPU type
// names. Tables keyed by epoch are kept for the whole run (at most models x
// epochs of them: 332 for the built-in catalog); those keyed by an exact
// progress only while a job of the round asks for them. Private to policies/.
#include <compare>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memory_bound_types.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/goodput_estimator.hpp"

namespace vnsim::pollux {

struct TableKey {
  std::string model;
  int batch = 0;             // the job's own global batch without adaptive batch; 0 with it
  int epoch = 0;             // of a per-batch noise profile; 0 without one
  bool by_progress = false;  // a profile without per-batch epochs: the goodput reads the progress
  double progress = 0;       // then the exact progress; 0 otherwise
  auto operator<=>(const TableKey&) const = default;
};

class GoodputTables {
 public:
  // Starts a round: every table was priced on `topology` (or all are
  // dropped, and its cluster's GPU types numbered again).
  void begin_round(const Topology& topology, const GoodputEstimator& estimator) {
    if (topology_ != &topology || cluster_ != &topology.cluster() ||
        nodes_ != topology.cluster().node_count()) {
      by_key_.clear();
      by_progress_ = 0;
      ++generation_;
      types_.emplace(topology.cluster(), estimator);
    }
    topology_ = &topology;
    cluster_ = &topology.cluster();
    nodes_ = topology.cluster().node_count();
    ++round_;
  }
  // The GPU types the tables' cells are indexed by (built once per
  // topology: from every GPU's type name, which took a string compare per
  // GPU per round).
  const MemoryBoundTypes& types() const { return *types_; }
  // The cells of `key` for this round: empty when new (the caller fills
  // them with -1, unknown, at its first look-up), else as priced in an
  // earlier round. Valid until the next begin_round().
  std::vector<double>& cells(const TableKey& key) {
    const auto [it, added] = by_key_.try_emplace(key);
    if (added && key.by_progress) ++by_progress_;
    it->second.round = round_;
    return it->second.cells;
  }
  // Drops the tables keyed by an exact progress that no job of this round
  // asked for: no later round asks for them again. It walks the tables
  // only while some are keyed so (by_progress_): a walk over all of them
  // at every round was 1 % of a replay of the heavy trace, which has none.
  void forget_others() {
    for (auto it = by_key_.begin(); by_progress_ > 0 && it != by_key_.end();)
      if (it->first.by_progress && it->second.round != round_) {
        it = by_key_.erase(it);
        --by_progress_;
      } else {
        ++it;
      }
  }
  std::size_t size() const { return by_key_.size(); }
  // Changes whenever the tables are dropped: a cell of one generation may
  // differ from the same key's cell of another.
  long generation() const { return generation_; }

 private:
  struct Entry {
    long round = 0;
    std::vector<double> cells;
  };
  const Topology* topology_ = nullptr;
  const Cluster* cluster_ = nullptr;
  int nodes_ = 0;
  std::optional<MemoryBoundTypes> types_;
  long round_ = 0;
  long generation_ = 0;
  std::map<TableKey, Entry> by_key_;
  std::size_t by_progress_ = 0;  // tables of by_key_ keyed by an exact progress
};

}  // namespace vnsim::pollux
