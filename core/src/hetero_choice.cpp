#include "vnsim/core/hetero_choice.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace vnsim {
namespace {

constexpr double kMaxCandidates = 1e6;

// Visits every count vector 0 <= used[g] <= available[g].gpus except all-zero,
// lexicographically, and keeps the best split that `split_on` returns for the
// feasible ones (`split_on` gets the non-empty groups and the collective).
template <typename SplitOn>
HeteroChoice choose(const std::vector<GpuTypeGroup>& available, int max_gpus,
                    const CollectiveOf& collective_s, const SplitOn& split_on) {
  if (available.empty()) throw std::invalid_argument("heterogeneous choice: no GPU groups");
  if (!collective_s) throw std::invalid_argument("heterogeneous choice: no collective model");
  double candidates = 1;
  for (const GpuTypeGroup& g : available) {
    if (g.gpus < 0) throw std::invalid_argument("heterogeneous choice: group '" + g.type + "' has < 0 GPUs");
    candidates *= g.gpus + 1.0;
  }
  if (candidates > kMaxCandidates)
    throw std::invalid_argument("heterogeneous choice: " + std::to_string(candidates) +
                                " GPU-count combinations, more than the exhaustive search allows");
  HeteroChoice best;
  double best_total = std::numeric_limits<double>::infinity();
  int best_gpus = 0;
  std::vector<int> used(available.size(), 0);
  while (true) {
    // Next count vector (odometer, last group fastest).
    std::size_t g = used.size();
    while (g > 0 && used[g - 1] == available[g - 1].gpus) used[--g] = 0;
    if (g == 0) break;
    ++used[g - 1];
    int total = 0;
    std::vector<GpuTypeGroup> groups;
    std::vector<int> input_index;
    for (std::size_t i = 0; i < available.size(); ++i) {
      if (used[i] == 0) continue;
      total += used[i];
      GpuTypeGroup group = available[i];
      group.gpus = used[i];
      groups.push_back(std::move(group));
      input_index.push_back(static_cast<int>(i));
    }
    if (total > max_gpus) continue;
    HeteroSplit split = split_on(groups, collective_s(used));
    if (split.total_s < best_total || (split.total_s == best_total && total < best_gpus)) {
      // Relabel the split's groups with the input groups' indices.
      for (GpuShare& s : split.gpus) s.group = input_index[static_cast<std::size_t>(s.group)];
      std::vector<int> lo(available.size(), 0), hi(available.size(), 0);
      for (std::size_t k = 0; k < input_index.size(); ++k) {
        lo[static_cast<std::size_t>(input_index[k])] = split.min_units_per_group[k];
        hi[static_cast<std::size_t>(input_index[k])] = split.max_units_per_group[k];
      }
      split.min_units_per_group = std::move(lo);
      split.max_units_per_group = std::move(hi);
      best_total = split.total_s;
      best_gpus = total;
      best.used = used;
      best.split = std::move(split);
    }
  }
  if (best.used.empty())
    throw std::invalid_argument("heterogeneous choice: no GPU count fits (each used GPU needs at least one " +
                                std::string("unit)"));
  return best;
}

}  // namespace

HeteroChoice choose_virtual_nodes(const std::vector<GpuTypeGroup>& available, int virtual_nodes,
                                  int global_batch, const CollectiveOf& collective_s) {
  return choose(available, virtual_nodes, collective_s,
                [&](const std::vector<GpuTypeGroup>& groups, double collective) {
                  return split_virtual_nodes(groups, virtual_nodes, global_batch, collective);
                });
}

HeteroChoice choose_batch(const std::vector<GpuTypeGroup>& available, int global_batch,
                          const CollectiveOf& collective_s) {
  return choose(available, global_batch, collective_s,
                [&](const std::vector<GpuTypeGroup>& groups, double collective) {
                  return split_batch(groups, global_batch, collective);
                });
}

}  // namespace vnsim
