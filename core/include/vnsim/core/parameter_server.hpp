#pragma once
// Parameter-server training on a Topology (idle network): synchronous mode,
// asynchronous mode, and straggler injection. The exchange itself is the
// PushPull collective (collectives.hpp), so the SimGrid bench can run it.
#include <cstdint>
#include <vector>

#include "vnsim/core/topology.hpp"

namespace vnsim {

// A worker is a straggler with `probability`; its compute is then multiplied
// by a factor drawn uniformly in [min_slowdown, max_slowdown]. Drawn once
// per worker (a slow machine), from `seed` only.
struct StragglerSpec {
  double probability = 0;
  double min_slowdown = 1;
  double max_slowdown = 1;
  std::uint64_t seed = 0;
};

// One factor per worker (1 for the others). Same spec => same factors on
// every platform (splitmix64, no std distribution). Throws InputError for a
// probability outside [0, 1] or slowdowns below 1 or out of order.
std::vector<double> draw_straggler_slowdowns(int workers, const StragglerSpec& spec);

struct PsJob {
  std::vector<GpuId> servers;
  std::vector<GpuId> workers;
  double gradient_bytes = 0;             // pushed and pulled by each worker per step
  std::vector<double> worker_compute_s;  // per worker and step, slowdowns included
};

// Synchronous: every worker computes, pushes, the servers aggregate, every
// worker pulls. Step = slowest worker's compute + the push/pull schedule.
double ps_sync_step_s(const Topology& topo, const PsJob& job);

// Asynchronous: each worker loops compute, push, pull without waiting for
// the others, so the servers apply sum_i 1/T_i updates per second. T_i =
// C_i + lambda * X_i, X_i = worker i's push/pull alone; lambda >= 1 is the
// smallest slowdown for which the workers' bytes per second fit the servers'
// NICs (sum_i G/T_i <= server capacity per direction; a fluid, max-min
// style sharing). Servers are assumed on nodes without workers.
struct PsAsyncRate {
  double updates_per_s = 0;
  double lambda = 1;                  // communication slowdown from server sharing
  std::vector<double> worker_step_s;  // T_i
};
PsAsyncRate ps_async_rate(const Topology& topo, const PsJob& job);

}  // namespace vnsim
