// Node revocations (spot capacity) and failures (docs/SPOT.md): a node leaves
// the cluster, the jobs on it lose their work since their last checkpoint and
// go back to the queue, and the node comes back `down_s` later. Its GPUs are
// held by a placeholder owner meanwhile, so no policy can place on them.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "replay_controller.hpp"
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

void ReplayController::init_node_events() {
  const ReplayOptions& o = in_.options;
  const int nodes = in_.cluster.node_count();
  down_until_.assign(static_cast<std::size_t>(nodes), -1);
  for (const NodeInfo& n : in_.cluster.nodes())
    if (in_.cluster.node_spec(n.id).spot) spot_nodes_.push_back(n.id);
  for (const NodeEvent& e : o.node_events) {
    if (e.node < 0 || e.node >= nodes)
      throw InputError("node event at t=" + std::to_string(e.time_s) + ": node index " +
                       std::to_string(e.node) + " is not in the cluster");
    if (!std::isfinite(e.time_s) || e.time_s < 0 || !std::isfinite(e.down_s) || e.down_s <= 0)
      throw InputError("node event on node '" + in_.cluster.node(e.node).name +
                       "': time must be >= 0 and down time > 0");
    node_events_.push(PendingNodeEvent{e.time_s, kExplicit, e.node, e.down_s});
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
// extends its outage (take_node_down).
void ReplayController::schedule_random_event(int kind, double after_s) {
  const bool spot = kind == kRandomRevocation;
  const double per_node_hour =
      spot ? in_.options.revocation_rate_per_node_hour : in_.options.failure_rate_per_node_hour;
  const std::size_t eligible = spot ? spot_nodes_.size() : static_cast<std::size_t>(in_.cluster.node_count());
  const double rate_per_s = per_node_hour * static_cast<double>(eligible) / 3600.0;
  const double gap = -std::log(1.0 - uniform01(rng_)) / rate_per_s;
  const std::size_t pick = static_cast<std::size_t>(uniform01(rng_) * static_cast<double>(eligible));
  const NodeId node =
      spot ? spot_nodes_[std::min(pick, eligible - 1)] : static_cast<NodeId>(std::min(pick, eligible - 1));
  node_events_.push(PendingNodeEvent{after_s + gap, kind, node, in_.options.node_down_s});
}

bool ReplayController::any_node_down() const {
  return std::any_of(down_until_.begin(), down_until_.end(), [](double t) { return t >= 0; });
}

void ReplayController::process_node_events(double now) {
  while (!node_events_.empty() && node_events_.top().time_s <= now) {
    const PendingNodeEvent e = node_events_.top();
    node_events_.pop();
    const auto n = static_cast<std::size_t>(e.node);
    if (e.kind == kReturn) {
      if (down_until_[n] < 0 || e.time_s < down_until_[n]) continue;  // extended by a later event
      const NodeInfo& node = in_.cluster.node(e.node);
      std::vector<GpuId> gpus(static_cast<std::size_t>(node.gpu_count));
      for (int i = 0; i < node.gpu_count; ++i) gpus[static_cast<std::size_t>(i)] = node.first_gpu + i;
      view_.release(gpus, in_.jobs.size());
      recorder_.node_returned(gpus, e.time_s);
      down_until_[n] = -1;
      continue;
    }
    if (e.kind == kRandomRevocation || e.kind == kRandomFailure) {
      if (recorder_.all_done()) continue;  // nothing left to disturb: stop drawing
      schedule_random_event(e.kind, e.time_s);
    }
    take_node_down(e.node, e.time_s, e.down_s);
  }
}

void ReplayController::take_node_down(NodeId node_id, double now, double down_s) {
  const auto n = static_cast<std::size_t>(node_id);
  const double until = now + down_s;
  recorder_.node_event();
  if (down_until_[n] >= 0) {  // already down: it stays down until the later return
    if (until > down_until_[n]) {
      down_until_[n] = until;
      node_events_.push(PendingNodeEvent{until, kReturn, node_id, 0});
    }
    return;
  }
  const NodeInfo& node = in_.cluster.node(node_id);
  const auto on_node = [&](GpuId g) { return g >= node.first_gpu && g < node.first_gpu + node.gpu_count; };
  // Victims in job-index order, so the requeue order never depends on the
  // order of the running list.
  std::vector<JobIndex> victims;
  for (const RunningJob& r : driver_.running()) {
    const std::vector<GpuId>& held = state_[r.index].placement.gpus;
    if (std::any_of(held.begin(), held.end(), on_node)) victims.push_back(r.index);
  }
  std::sort(victims.begin(), victims.end());
  for (JobIndex j : victims) {
    stop_and_requeue(j, now, AllocationCause::NodeDown);
    if (state_[j].phase == Phase::Queued) recorder_.job_revoked();
  }
  if (!victims.empty()) last_event_s_ = std::max(last_event_s_, now);
  std::vector<GpuId> gpus(static_cast<std::size_t>(node.gpu_count));
  for (int i = 0; i < node.gpu_count; ++i) gpus[static_cast<std::size_t>(i)] = node.first_gpu + i;
  view_.allocate(gpus, in_.jobs.size());  // the placeholder owner: one past the last job
  recorder_.node_left(gpus, now);
  down_until_[n] = until;
  node_events_.push(PendingNodeEvent{until, kReturn, node_id, 0});
}

}  // namespace vnsim::sim
