#pragma once
// A greedy seed for Pollux's genetic search (docs/POLICIES.md, Pollux
// "Scaling"). Starting from nothing, it hands out GPUs one move at a time,
// always taking the move that raises the search's objective (the generalised
// mean of speedups, restart factor included) most per GPU it adds: a running
// job taking back its current GPUs, a job growing on a node it holds, moving
// to a roomier node, or spreading onto a node no other distributed job uses.
// It stops when no move raises the objective. The search keeps the best
// individual it has seen, so seeding with this one can only raise the
// fitness of what a round decides.
//
// Why it is needed: with hundreds of jobs, a genetic child carries hundreds
// of random row mutations at once, so a child that grows one job almost
// always loses elsewhere; on a large, mostly idle cluster the search then
// leaves jobs on a GPU or two while most GPUs stay free.
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "vnsim/core/cluster.hpp"

namespace vnsim {

struct ClimbJob {
  std::vector<std::pair<NodeId, int>> current;  // GPUs per node now; empty when queued
  double restart_factor = 1;                    // speedup multiplier once its GPUs change (running jobs)
  int max_gpus = 1;
};

struct ClimbProblem {
  std::vector<ClimbJob> jobs;
  std::vector<int> capacity;  // GPUs of each node, by node id
  int max_nodes = 16;         // nodes per job
  double p = -1;              // generalised-mean exponent, as in PolluxParams
  // Speedup of job j on (nodes, gpus), without the restart factor; 0 where
  // the job cannot run.
  std::function<double(std::size_t job, int nodes, int gpus)> speedup;
};

// GPUs per node of each job, by node id; empty for a job left without GPUs.
// No node holds more than its capacity nor more than one job that spans
// several nodes, and no job exceeds max_nodes or its max_gpus.
std::vector<std::vector<std::pair<NodeId, int>>> climb_allocation(const ClimbProblem& problem);

}  // namespace vnsim
