#include "node_event_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "vnsim/core/error.hpp"

namespace vnsim::sim {
namespace {

constexpr int kReturn = 0;
constexpr int kExplicit = 1;
constexpr int kRandomRevocation = 2;
constexpr int kRandomFailure = 3;

// Uniform in [0, 1) from 53 random bits: the same on every standard library.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace

NodeEventSchedule::NodeEventSchedule(const Cluster& cluster, const ReplayOptions& options)
    : cluster_(cluster), options_(options) {
  const ReplayOptions& o = options_;
  const int nodes = cluster_.node_count();
  down_until_.assign(static_cast<std::size_t>(nodes), -1);
  for (const NodeInfo& n : cluster_.nodes())
    if (cluster_.node_spec(n.id).spot) spot_nodes_.push_back(n.id);
  for (const NodeEvent& e : o.node_events) {
    if (e.node < 0 || e.node >= nodes)
      throw InputError("node event at t=" + std::to_string(e.time_s) + ": node index " +
                       std::to_string(e.node) + " is not in the cluster");
    if (!std::isfinite(e.time_s) || e.time_s < 0 || !std::isfinite(e.down_s) || e.down_s <= 0)
      throw InputError("node event on node '" + cluster_.node(e.node).name +
                       "': time must be >= 0 and down time > 0");
    events_.push(Pending{e.time_s, kExplicit, e.node, e.down_s});
  }
  const auto check_rate = [](double rate, const char* what) {
    if (!std::isfinite(rate) || rate < 0) throw InputError(std::string(what) + " must be >= 0");
  };
  check_rate(o.revocation_rate_per_node_hour, "revocation rate");
  check_rate(o.failure_rate_per_node_hour, "failure rate");
  if ((o.revocation_rate_per_node_hour > 0 || o.failure_rate_per_node_hour > 0) &&
      (!std::isfinite(o.node_down_s) || o.node_down_s <= 0))
    throw InputError("node down time must be > 0");
  if (o.revocation_rate_per_node_hour > 0 && spot_nodes_.empty())
    throw InputError("a revocation rate was given but the cluster has no spot node (\"spot\": true)");
  rng_.seed(o.seed);
  if (o.revocation_rate_per_node_hour > 0) schedule_random_event(kRandomRevocation, 0);
  if (o.failure_rate_per_node_hour > 0) schedule_random_event(kRandomFailure, 0);
}

// Poisson process over all eligible nodes at rate per node x node count, each
// event on a uniformly drawn node; one that picks a node already down only
// extends its outage (next_due).
void NodeEventSchedule::schedule_random_event(int kind, double after_s) {
  const bool spot = kind == kRandomRevocation;
  const double per_node_hour =
      spot ? options_.revocation_rate_per_node_hour : options_.failure_rate_per_node_hour;
  const std::size_t eligible = spot ? spot_nodes_.size() : static_cast<std::size_t>(cluster_.node_count());
  const double rate_per_s = per_node_hour * static_cast<double>(eligible) / 3600.0;
  const double gap = -std::log(1.0 - uniform01(rng_)) / rate_per_s;
  const std::size_t pick = static_cast<std::size_t>(uniform01(rng_) * static_cast<double>(eligible));
  const NodeId node =
      spot ? spot_nodes_[std::min(pick, eligible - 1)] : static_cast<NodeId>(std::min(pick, eligible - 1));
  events_.push(Pending{after_s + gap, kind, node, options_.node_down_s});
}

std::optional<double> NodeEventSchedule::next_s() const {
  if (events_.empty()) return std::nullopt;
  return events_.top().time_s;
}

bool NodeEventSchedule::any_down() const {
  return std::any_of(down_until_.begin(), down_until_.end(), [](double t) { return t >= 0; });
}

std::optional<NodeChange> NodeEventSchedule::next_due(double now, bool all_done) {
  while (!events_.empty() && events_.top().time_s <= now) {
    const Pending e = events_.top();
    events_.pop();
    const auto n = static_cast<std::size_t>(e.node);
    if (e.kind == kReturn) {
      if (down_until_[n] < 0 || e.time_s < down_until_[n]) continue;  // extended by a later event
      down_until_[n] = -1;
      return change(NodeChange::Kind::Returned, e.node, e.time_s);
    }
    if (e.kind == kRandomRevocation || e.kind == kRandomFailure) {
      if (all_done) continue;  // nothing left to disturb: stop drawing
      schedule_random_event(e.kind, e.time_s);
    }
    const double until = e.time_s + e.down_s;
    const bool was_down = down_until_[n] >= 0;
    // A node already down stays down until the later return.
    if (!was_down || until > down_until_[n]) {
      down_until_[n] = until;
      events_.push(Pending{until, kReturn, e.node, 0});
    }
    return change(was_down ? NodeChange::Kind::WhileDown : NodeChange::Kind::Left, e.node, e.time_s);
  }
  return std::nullopt;
}

NodeChange NodeEventSchedule::change(NodeChange::Kind kind, NodeId node_id, double time_s) const {
  const NodeInfo& node = cluster_.node(node_id);
  NodeChange c{kind, node_id, time_s, std::vector<GpuId>(static_cast<std::size_t>(node.gpu_count))};
  for (int i = 0; i < node.gpu_count; ++i) c.gpus[static_cast<std::size_t>(i)] = node.first_gpu + i;
  return c;
}

}  // namespace vnsim::sim
