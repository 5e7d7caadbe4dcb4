#pragma once
// Collective communication on a Topology: each collective algorithm is a
// schedule of synchronous phases of point-to-point flows. The analytic model
// (α-β with link sharing inside a phase) and the SimGrid bench (sim/) run the
// same schedule, so the two can be checked against each other and against
// the textbook α-β formulas (Thakur, Rabenseifner & Gropp, IJHPCA 2005; e.g.
// ring all-reduce 2(n-1)·α + 2·(n-1)/n·S/B).
// docs/NETWORK.md describes the model and what it leaves out.
#include <string>
#include <vector>

#include "vnsim/core/topology.hpp"

namespace vnsim {

// PushPull: parameter-server exchange, every worker pushes its gradient to
// the servers (1/servers to each) and then pulls the new weights back
// (build_push_pull_schedule; build_schedule uses ranks[0] as the one server).
enum class CollectiveOp {
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  SendRecv,
  PushPull
};
// Tree = binomial-tree reduce then broadcast (not NCCL's pipelined double
// binary tree); Hierarchical = intra-node reduce-scatter, inter-node ring
// all-reduce, intra-node all-gather. Auto = NCCL-like choice (choose_algorithm).
enum class CollectiveAlgo { Ring, Tree, Hierarchical, Auto };

std::string to_string(CollectiveOp op);
std::string to_string(CollectiveAlgo algo);
// Throw InputError naming the accepted values.
CollectiveOp parse_collective_op(const std::string& text);
CollectiveAlgo parse_collective_algo(const std::string& text);

// nccl-tests busbw = algbw * factor (nccl-tests doc/PERFORMANCE.md): 2(n-1)/n
// for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1
// for broadcast and reduce.
double busbw_factor(CollectiveOp op, int ranks);

// One transfer of a phase, between positions in the rank order.
struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};
// Flows that start together; a rank starts a phase once it has finished its
// flows of the previous one. `repeat` identical phases follow each other.
struct Phase {
  std::vector<Flow> flows;
  long long repeat = 1;
};
struct CollectiveSchedule {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algo = CollectiveAlgo::Ring;  // never Auto
  std::vector<GpuId> ranks;                    // rank i runs on ranks[i]
  std::vector<Phase> phases;
};

// Ranks grouped by rack, then node, then local index, so a ring crosses each
// rack (and node) boundary once. Duplicates are an InputError.
std::vector<GpuId> topology_ring_order(const Cluster& cluster, std::vector<GpuId> gpus);

// `bytes` follows nccl-tests (§2): the buffer size for all-reduce, broadcast,
// reduce and send-recv, the total output (all-gather) or input
// (reduce-scatter), and each rank's whole send buffer for all-to-all.
// Ranks are used in the given order (see topology_ring_order). Throws
// InputError for fewer than 1 rank, negative bytes, Auto, an algorithm the
// op does not have, or Hierarchical with unequal GPUs per node.
CollectiveSchedule build_schedule(const Cluster& cluster, CollectiveOp op, CollectiveAlgo algo,
                                  const std::vector<GpuId>& ranks, double bytes);

// Idle-network time of one phase: for each link direction (split-duplex, as
// in SimGrid) the earliest latency of its flows plus its bytes / bandwidth;
// the phase ends with its busiest link (or its longest latency). Exact when
// one flow loads each link, or the flows of the busiest link are alike.
// schedule_time sums phases, except broadcast/reduce chains, priced as
// pipelines (fill + (chunks - 1) x slowest hop).
double phase_time(const Topology& topo, const std::vector<GpuId>& ranks, const Phase& phase);
double schedule_time(const Topology& topo, const CollectiveSchedule& schedule);
// One point-to-point message: route latency + bytes / bottleneck bandwidth.
double p2p_time(const Topology& topo, GpuId src, GpuId dst, double bytes);

// Parameter-server push then pull of `bytes` per worker: ranks = servers
// then workers. Phase 1: each worker sends bytes/servers to every server;
// phase 2: each server sends bytes/servers to every worker. Throws
// InputError without a server or a worker.
CollectiveSchedule build_push_pull_schedule(const std::vector<GpuId>& servers,
                                            const std::vector<GpuId>& workers, double bytes);

// NCCL's choice between ring and tree for all-reduce, from its tuning model
// (NCCL 2.28.9 src/graph/tuning.cc, Simple protocol): time = latency + bytes/bw,
// with NCCL's base and per-hop latencies and the ring's bottleneck
// bandwidth. Every other op uses Ring (NCCL runs them as rings or p2p).
CollectiveAlgo choose_algorithm(const Topology& topo, CollectiveOp op, const std::vector<GpuId>& ranks,
                                double bytes);

// Analytic time of a collective; Auto resolves with choose_algorithm.
double collective_time(const Topology& topo, CollectiveOp op, CollectiveAlgo algo,
                       const std::vector<GpuId>& ranks, double bytes);

}  // namespace vnsim
