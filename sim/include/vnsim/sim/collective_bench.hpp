#pragma once
// Runs collective schedules (vnsim/core/collectives.hpp) on the SimGrid
// platform: one actor per rank, one mailbox comm per flow, each rank moving
// to its next phase once its own flows of the current one are done. The
// network is otherwise idle, so this measures the collectives alone and,
// within a batch, against each other.
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/gpu_catalog.hpp"

namespace vnsim {

// Creates this process's SimGrid engine (one per process: call once) and runs
// the batches one after another; the schedules of a batch start together.
// Returns, per batch, each schedule's simulated duration in seconds.
std::vector<std::vector<double>> simulate_collective_batches(
    const Cluster& cluster, const GpuCatalog& gpu_catalog,
    const std::vector<std::vector<CollectiveSchedule>>& batches);

}  // namespace vnsim
