#include "vnsim/core/parameter_server.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "vnsim/core/collectives.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double unit_interval(std::uint64_t& state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
}

void check(const PsJob& job) {
  if (job.servers.empty() || job.workers.empty())
    throw InputError("parameter-server job needs at least one server and one worker");
  if (job.worker_compute_s.size() != job.workers.size())
    throw std::invalid_argument("parameter-server job: one compute time per worker");
}

double push_pull_s(const Topology& topo, const std::vector<GpuId>& servers, const std::vector<GpuId>& workers,
                   double bytes) {
  return schedule_time(topo, build_push_pull_schedule(servers, workers, bytes));
}

}  // namespace

std::vector<double> draw_straggler_slowdowns(int workers, const StragglerSpec& spec) {
  if (!(spec.probability >= 0 && spec.probability <= 1))
    throw InputError("stragglers: probability must be in [0, 1]");
  if (!(spec.min_slowdown >= 1 && spec.max_slowdown >= spec.min_slowdown))
    throw InputError("stragglers: need 1 <= min_slowdown <= max_slowdown");
  std::uint64_t state = spec.seed;
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(std::max(0, workers)));
  for (int w = 0; w < workers; ++w) {
    // Two draws per worker whatever the outcome, so worker w's factor does
    // not depend on the others'.
    const double is_straggler = unit_interval(state);
    const double where = unit_interval(state);
    out.push_back(is_straggler < spec.probability
                      ? spec.min_slowdown + where * (spec.max_slowdown - spec.min_slowdown)
                      : 1.0);
  }
  return out;
}

double ps_sync_step_s(const Topology& topo, const PsJob& job) {
  check(job);
  const double slowest = *std::max_element(job.worker_compute_s.begin(), job.worker_compute_s.end());
  return slowest + push_pull_s(topo, job.servers, job.workers, job.gradient_bytes);
}

PsAsyncRate ps_async_rate(const Topology& topo, const PsJob& job) {
  check(job);
  const std::size_t n = job.workers.size();
  std::vector<double> alone(n);
  for (std::size_t i = 0; i < n; ++i)
    alone[i] = push_pull_s(topo, job.servers, {job.workers[i]}, job.gradient_bytes);
  std::set<NodeId> server_nodes;
  for (GpuId s : job.servers) server_nodes.insert(topo.cluster().gpu(s).node);
  double capacity_Bps = 0;
  for (NodeId node : server_nodes) capacity_Bps += topo.node_nic_Bps(node);

  const auto demand_Bps = [&](double lambda) {
    double bytes_per_s = 0;
    for (std::size_t i = 0; i < n; ++i)
      bytes_per_s += job.gradient_bytes / (job.worker_compute_s[i] + lambda * alone[i]);
    return bytes_per_s;
  };
  PsAsyncRate out;
  if (demand_Bps(1.0) > capacity_Bps) {
    // demand falls as lambda grows; bisect to a relative 1e-12.
    double lo = 1.0, hi = 2.0;
    while (demand_Bps(hi) > capacity_Bps) hi *= 2;
    for (int k = 0; k < 200 && hi - lo > 1e-12 * hi; ++k) {
      const double mid = 0.5 * (lo + hi);
      (demand_Bps(mid) > capacity_Bps ? lo : hi) = mid;
    }
    out.lambda = hi;
  }
  out.worker_step_s.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.worker_step_s[i] = job.worker_compute_s[i] + out.lambda * alone[i];
    out.updates_per_s += 1.0 / out.worker_step_s[i];
  }
  return out;
}

}  // namespace vnsim
