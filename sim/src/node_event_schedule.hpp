#pragma once
// Node revocations and failures as a schedule (docs/SPOT.md): the explicit
// events of the options, Poisson revocations of spot nodes and failures of
// any node drawn from one seeded generator, and each node's return. It owns
// which nodes are down and until when; the controller only acts on the
// changes it hands out (stopping the jobs on a node that left, holding or
// freeing the node's GPUs). No SimGrid.
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

// A change of the cluster's capacity at time_s.
struct NodeChange {
  enum class Kind {
    Left,       // the node left: the jobs on it stop, its GPUs are held until it returns
    WhileDown,  // an event hit a node already down: it stays down until the later return
    Returned,   // the node is back: its GPUs are free again
  };
  Kind kind;
  NodeId node;
  double time_s;
  std::vector<GpuId> gpus;  // every GPU of the node
};

class NodeEventSchedule {
 public:
  // Checks the explicit events and the rates (InputError) and draws the
  // first random events from options.seed.
  NodeEventSchedule(const Cluster& cluster, const ReplayOptions& options);

  std::optional<double> next_s() const;
  bool any_down() const;
  // The next change at or before `now`, in (time, kind, node) order; none
  // when nothing is due. With `all_done` the random events that fall due are
  // dropped and no more are drawn (nothing is left to disturb).
  std::optional<NodeChange> next_due(double now, bool all_done);

 private:
  struct Pending {
    double time_s;
    int kind;  // 0 = node returns, 1 = explicit event, 2 = random revocation, 3 = random failure
    NodeId node;
    double down_s;
    bool operator>(const Pending& o) const {
      if (time_s != o.time_s) return time_s > o.time_s;
      if (kind != o.kind) return kind > o.kind;
      return node > o.node;
    }
  };
  void schedule_random_event(int kind, double after_s);
  NodeChange change(NodeChange::Kind kind, NodeId node, double time_s) const;

  const Cluster& cluster_;
  const ReplayOptions& options_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> events_;
  std::vector<double> down_until_;  // per node; -1 while up
  std::vector<NodeId> spot_nodes_;
  std::mt19937_64 rng_;
};

}  // namespace vnsim::sim
