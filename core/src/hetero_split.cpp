#include "vnsim/core/hetero_split.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace vnsim {
namespace {

int total_gpus(const std::vector<GpuTypeGroup>& groups) {
  if (groups.empty()) throw std::invalid_argument("heterogeneous split: no GPU groups");
  int total = 0;
  for (const GpuTypeGroup& g : groups) {
    if (g.gpus < 1) throw std::invalid_argument("heterogeneous split: group '" + g.type + "' has no GPUs");
    if (!g.micro_batch_s)
      throw std::invalid_argument("heterogeneous split: group '" + g.type + "' has no profile");
    if (g.max_micro_batch < 0)
      throw std::invalid_argument("heterogeneous split: group '" + g.type +
                                  "' has a negative micro-batch cap");
    total += g.gpus;
  }
  return total;
}

// Min-max allocation of `units` over GPUs, each starting with one unit:
// the next unit goes to the GPU whose time after taking it is smallest
// (ties: fewer units, then lower GPU index). With per-GPU times that never
// decrease in the unit count, this greedy is optimal for the bottleneck:
// every unit it hands out is one the optimum must also place at or below the
// time the greedy pays for it.
// time_of(group, n) is the time of a GPU of `group` holding n units.
template <typename TimeOf>
HeteroSplit allocate(const std::vector<GpuTypeGroup>& groups, int units, double collective_s,
                     const TimeOf& time_of) {
  HeteroSplit out;
  for (std::size_t gi = 0; gi < groups.size(); ++gi)
    for (int k = 0; k < groups[gi].gpus; ++k) {
      GpuShare share;
      share.group = static_cast<int>(gi);
      share.gradient_weight = 0;
      out.gpus.push_back(share);
    }
  std::vector<int> held(out.gpus.size(), 1);
  using Entry = std::tuple<double, int, std::size_t>;  // next time, units held, GPU index
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> next;
  for (std::size_t i = 0; i < out.gpus.size(); ++i) next.emplace(time_of(out.gpus[i].group, 2), 1, i);
  for (int left = units - static_cast<int>(out.gpus.size()); left > 0; --left) {
    const std::size_t i = std::get<2>(next.top());
    next.pop();
    ++held[i];
    next.emplace(time_of(out.gpus[i].group, held[i] + 1), held[i], i);
  }
  out.min_units_per_group.assign(groups.size(), 0);
  out.max_units_per_group.assign(groups.size(), 0);
  for (std::size_t i = 0; i < out.gpus.size(); ++i) {
    const int g = out.gpus[i].group;
    out.gpus[i].compute_s = time_of(g, held[i]);
    out.compute_s = std::max(out.compute_s, out.gpus[i].compute_s);
    out.min_units_per_group[g] =
        out.min_units_per_group[g] == 0 ? held[i] : std::min(out.min_units_per_group[g], held[i]);
    out.max_units_per_group[g] = std::max(out.max_units_per_group[g], held[i]);
  }
  for (std::size_t i = 0; i < out.gpus.size(); ++i) out.gpus[i].virtual_nodes = held[i];  // caller relabels
  out.collective_s = collective_s;
  out.total_s = out.compute_s + collective_s;
  return out;
}

void check_collective(double collective_s) {
  if (!(collective_s >= 0) || !std::isfinite(collective_s))
    throw std::invalid_argument("heterogeneous split: collective time must be finite and >= 0");
}

}  // namespace

HeteroSplit split_virtual_nodes(const std::vector<GpuTypeGroup>& groups, int virtual_nodes, int global_batch,
                                double collective_s) {
  const int p = total_gpus(groups);
  check_collective(collective_s);
  if (global_batch < 1) throw std::invalid_argument("split_virtual_nodes: global batch must be >= 1");
  if (virtual_nodes < p)
    throw std::invalid_argument("split_virtual_nodes: " + std::to_string(virtual_nodes) +
                                " virtual nodes cannot cover " + std::to_string(p) + " GPUs");
  const double vn_batch = static_cast<double>(global_batch) / virtual_nodes;
  std::vector<double> per_vn(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) per_vn[g] = groups[g].micro_batch_s(vn_batch);
  HeteroSplit out =
      allocate(groups, virtual_nodes, collective_s, [&](int g, int n) { return n * per_vn[g]; });
  for (GpuShare& s : out.gpus) {
    s.micro_batches = s.virtual_nodes;
    // Whole virtual nodes of equal size: the local batch is fractional
    // when V does not divide B, so the weight uses the exact share.
    s.local_batch = static_cast<int>(std::lround(s.virtual_nodes * vn_batch));
    s.gradient_weight = static_cast<double>(s.virtual_nodes) / virtual_nodes;
  }
  return out;
}

double batch_step_s(const GpuTypeGroup& group, int local_batch) {
  if (local_batch < 1) throw std::invalid_argument("batch_step_s: local batch must be >= 1");
  const int k =
      group.max_micro_batch > 0 ? (local_batch + group.max_micro_batch - 1) / group.max_micro_batch : 1;
  return k * group.micro_batch_s(static_cast<double>(local_batch) / k);
}

HeteroSplit split_batch(const std::vector<GpuTypeGroup>& groups, int global_batch, double collective_s) {
  const int p = total_gpus(groups);
  check_collective(collective_s);
  if (global_batch < p)
    throw std::invalid_argument("split_batch: global batch " + std::to_string(global_batch) +
                                " cannot give every one of " + std::to_string(p) + " GPUs a sample");
  // Per group, the running maximum of batch_step_s over 1..b: a GPU never
  // gets faster by taking more samples (profiles have a few inversions).
  const int max_local = global_batch - p + 1;
  std::vector<std::vector<double>> step(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    step[g].assign(static_cast<std::size_t>(max_local) + 2, 0.0);
    for (int b = 1; b <= max_local + 1; ++b)
      step[g][b] = std::max(step[g][b - 1], batch_step_s(groups[g], b));
  }
  HeteroSplit out = allocate(groups, global_batch, collective_s, [&](int g, int n) { return step[g][n]; });
  for (GpuShare& s : out.gpus) {
    s.local_batch = s.virtual_nodes;
    s.virtual_nodes = 0;
    const int cap = groups[s.group].max_micro_batch;
    s.micro_batches = cap > 0 ? (s.local_batch + cap - 1) / cap : 1;
    s.gradient_weight = static_cast<double>(s.local_batch) / global_batch;
  }
  return out;
}

}  // namespace vnsim
