// `vnsim bench-collective`: an nccl-tests-like size sweep of one collective on
// the first N GPUs of a cluster (topology-ordered), simulated on SimGrid (all
// sizes one after another in one engine) or priced analytically.
#include "bench_collective_command.hpp"

#include <cstdio>

#include "args.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/sim/collective_bench.hpp"

namespace vnsim::cli {
namespace {

// "8", "64K", "4M", "4G": binary multiples, as nccl-tests' -b/-e.
double parse_size(const std::string& flag, const std::string& text) {
  if (text.empty()) throw InputError("option " + flag + ": empty size");
  double scale = 1;
  std::string digits = text;
  const char suffix = text.back();
  if (suffix == 'K' || suffix == 'M' || suffix == 'G') {
    scale = suffix == 'K' ? 1024.0 : suffix == 'M' ? 1024.0 * 1024 : 1024.0 * 1024 * 1024;
    digits.pop_back();
  }
  return static_cast<double>(parse_integer(flag, digits, 1)) * scale;
}

}  // namespace

const char* bench_collective_usage() {
  return "vnsim bench-collective --cluster <preset|file> --gpus N [--op allreduce|allgather|reducescatter|"
         "broadcast|reduce|alltoall|sendrecv] [--algo ring|tree|hierarchical|auto] [--min-bytes 8] "
         "[--max-bytes 4G] [--mode simulated|analytic]\n";
}

int run_bench_collective_command(const std::vector<std::string>& argv) {
  const Args args(argv, {"--cluster", "--gpus", "--op", "--algo", "--min-bytes", "--max-bytes", "--mode"},
                  {});
  const Cluster cluster(load_cluster_spec(args.require("--cluster")));
  const long long gpus = parse_integer("--gpus", args.require("--gpus"), 1);
  if (gpus > cluster.gpu_count())
    throw InputError("option --gpus: cluster '" + cluster.spec().name + "' has only " +
                     std::to_string(cluster.gpu_count()) + " GPUs");
  const CollectiveOp op = parse_collective_op(args.get_or("--op", "allreduce"));
  const CollectiveAlgo algo = parse_collective_algo(args.get_or("--algo", "auto"));
  const double min_bytes = parse_size("--min-bytes", args.get_or("--min-bytes", "8"));
  const double max_bytes = parse_size("--max-bytes", args.get_or("--max-bytes", "4G"));
  if (max_bytes < min_bytes) throw InputError("option --max-bytes: must be >= --min-bytes");
  const std::string mode = args.get_or("--mode", "simulated");
  if (mode != "simulated" && mode != "analytic")
    throw InputError("option --mode: '" + mode + "' (expected simulated|analytic)");

  std::vector<GpuId> all;
  for (GpuId g = 0; g < static_cast<GpuId>(gpus); ++g) all.push_back(g);
  const std::vector<GpuId> ranks = topology_ring_order(cluster, all);
  const Topology topo(cluster);
  std::vector<double> sizes;
  std::vector<std::vector<CollectiveSchedule>> batches;
  std::vector<double> times;
  for (double s = min_bytes; s <= max_bytes; s *= 2) {
    sizes.push_back(s);
    const CollectiveAlgo chosen = algo == CollectiveAlgo::Auto ? choose_algorithm(topo, op, ranks, s) : algo;
    batches.push_back({build_schedule(cluster, op, chosen, ranks, s)});
    times.push_back(schedule_time(topo, batches.back().front()));
  }
  if (mode == "simulated") {
    const auto simulated = simulate_collective_batches(cluster, GpuCatalog::builtin(), batches);
    for (std::size_t i = 0; i < times.size(); ++i) times[i] = simulated[i].at(0);
  }

  std::printf("# vnsim bench-collective: cluster %s, %lld GPUs, op %s, algo %s, mode %s\n",
              cluster.spec().name.c_str(), gpus, to_string(op).c_str(), to_string(algo).c_str(),
              mode.c_str());
  std::printf("# %14s %14s %-12s %12s %10s %10s\n", "size(B)", "count(fp32)", "algo", "time(us)", "algbw",
              "busbw");
  const double factor = busbw_factor(op, static_cast<int>(gpus));
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double algbw = times[i] > 0 ? sizes[i] / times[i] / 1e9 : 0;
    std::printf("  %14.0f %14.0f %-12s %12.2f %10.2f %10.2f\n", sizes[i], sizes[i] / 4,
                to_string(batches[i][0].algo).c_str(), times[i] * 1e6, algbw, algbw * factor);
  }
  return 0;
}

}  // namespace vnsim::cli
