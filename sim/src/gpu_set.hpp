#pragma once
// Small set operations on a job's GPU lists, which are short (a job's GPUs),
// so linear scans beat sorting and keep each list's order.
#include <algorithm>
#include <vector>

#include "vnsim/core/cluster.hpp"

namespace vnsim::sim {

inline bool holds(const std::vector<GpuId>& gpus, GpuId g) {
  return std::find(gpus.begin(), gpus.end(), g) != gpus.end();
}

// The GPUs of `a` not in `b`, in a's order.
inline std::vector<GpuId> gpus_not_in(const std::vector<GpuId>& a, const std::vector<GpuId>& b) {
  std::vector<GpuId> out;
  for (GpuId g : a)
    if (!holds(b, g)) out.push_back(g);
  return out;
}

}  // namespace vnsim::sim
