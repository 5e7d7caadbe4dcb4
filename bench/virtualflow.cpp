// VirtualFlow experiments (docs/HETEROGENEITY.md). SimGrid allows one engine
// per process, so each replay is one invocation:
//   virtualflow repro P            fixed-V imagenet job on P V100s (testbed)
//   virtualflow hetero-sim TYPES   imagenet, V = 16, on 4 V100 (+ 4 P100/K80)
//                                  with the engine's heterogeneous split, on
//                                  the GPUs VirtualFlow's solver chooses;
//                                  TYPES = v100 | v100+p100 | v100+k80
//   virtualflow hetero-profiles    solver only, Gavel-derived profiles:
//                                  V100-only vs V100 + P100/K80 throughput,
//                                  every GPU used and n_g chosen
// repro reads ../shared/profiles/pollux/imagenet/validation-<B>.csv through
// VNSIM_SHARED to print the convergence curve per sample.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/bench_cli.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/hetero_choice.hpp"
#include "vnsim/core/hetero_placement.hpp"
#include "vnsim/core/hetero_split.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/throughput_profile.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/core/units.hpp"
#include "vnsim/sim/replay.hpp"

namespace {

using namespace vnsim;

// One rack; node n has gpus_per_node GPUs of types[n]; NVLink inside a node
// (300 GB/s), one 100 Gb/s NIC per node, non-blocking uplink.
ClusterSpec nodes_of(const std::vector<std::string>& types, int gpus_per_node) {
  ClusterSpec spec;
  spec.name = "virtualflow-bench";
  spec.link_efficiency = 1.0;
  RackSpec rack;
  rack.name = "r0";
  rack.oversubscription = 1.0;
  rack.uplink_latency_s = units::us_to_s(1);
  for (std::size_t n = 0; n < types.size(); ++n) {
    NodeSpec node;
    node.name = "n" + std::to_string(n);
    node.gpu_types.assign(gpus_per_node, types[n]);
    node.intra = IntraNodeLink{IntraLinkKind::NVLink, 300e9, units::us_to_s(0.5)};
    node.nic_bandwidth_Bps = units::gbps_to_Bps(100);
    node.nic_latency_s = units::us_to_s(1);
    rack.nodes.push_back(node);
  }
  spec.racks.push_back(rack);
  return spec;
}

// Starts each job once on the given GPUs; the engine does the rest.
class StartOn : public Policy {
 public:
  explicit StartOn(std::vector<GpuId> gpus) : gpus_(std::move(gpus)) {}
  std::string name() const override { return "start-on"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    std::vector<Decision> out;
    if (in.queued.empty() || !in.view->is_free(gpus_.front())) return out;
    out.push_back(StartJob{in.queued.front().index,
                           spread_virtual_nodes(gpus_, in.queued.front().spec->effective_virtual_nodes())});
    return out;
  }

 private:
  std::vector<GpuId> gpus_;
};

std::vector<GpuId> first_gpus(int n) {
  std::vector<GpuId> gpus;
  for (int g = 0; g < n; ++g) gpus.push_back(g);
  return gpus;
}

// The first used[g] GPUs of each node (node g holds GPUs 4g .. 4g+3 in the
// benches' clusters of one type per node).
std::vector<GpuId> used_gpus(const std::vector<int>& used, int gpus_per_node) {
  std::vector<GpuId> gpus;
  for (std::size_t g = 0; g < used.size(); ++g)
    for (int k = 0; k < used[g]; ++k) gpus.push_back(static_cast<GpuId>(g) * gpus_per_node + k);
  return gpus;
}

struct Row {
  long long iteration;
  double metric;
};

std::vector<Row> validation_rows(int batch) {
  const char* shared = std::getenv("VNSIM_SHARED");
  if (shared == nullptr) return {};
  const std::string path =
      std::string(shared) + "/profiles/pollux/imagenet/validation-" + std::to_string(batch) + ".csv";
  std::ifstream in(path);
  if (!in) throw InputError("cannot open " + path);
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header: progress,iteration,metric,grad_sqr,grad_var
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string progress, iteration, metric;
    std::getline(fields, progress, ',');
    std::getline(fields, iteration, ',');
    std::getline(fields, metric, ',');
    rows.push_back(Row{std::stoll(iteration), std::stod(metric)});
  }
  return rows;
}

double replay_one(const Cluster& cluster, const JobSpec& job, const std::vector<GpuId>& gpus, bool hetero) {
  StartOn policy(gpus);
  ReplayOptions options;
  options.heterogeneous_split = hetero;
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {job}, policy, options);
  if (r.jobs[0].state != FinalState::Completed) throw std::runtime_error("job rejected: " + r.jobs[0].reason);
  return r.jobs[0].finish_s - r.jobs[0].start_s;
}

// Fixed V = 8 virtual nodes of 200 samples (B = 1600) on P = 1, 2, 4, 8 V100s.
int repro(int p) {
  constexpr int kVirtualNodes = 8;
  constexpr int kGlobalBatch = 1600;
  const std::vector<Row> rows = validation_rows(kGlobalBatch);
  const long long iterations = rows.empty() ? 5000 : rows.back().iteration;
  Cluster cluster(nodes_of({"V100", "V100"}, 4));
  JobSpec job;
  job.id = "repro";
  job.model = "imagenet";
  job.gpus = p;
  job.virtual_nodes = kVirtualNodes;
  job.global_batch = kGlobalBatch;
  job.iterations = iterations;
  const double run_s = replay_one(cluster, job, first_gpus(p), false);
  const double iter_s = run_s / static_cast<double>(iterations);
  std::printf(
      "P=%d V=%d vn_per_gpu=%d vn_batch=%d global_batch=%d iterations=%lld iteration_s=%.4f run_h=%.3f\n", p,
      kVirtualNodes, kVirtualNodes / p, kGlobalBatch / kVirtualNodes, kGlobalBatch, iterations, iter_s,
      run_s / 3600);
  std::printf("iteration\tsamples\ttop1\ttime_h\n");
  for (const Row& r : rows)
    std::printf("%lld\t%lld\t%.5f\t%.3f\n", r.iteration, r.iteration * kGlobalBatch, r.metric,
                r.iteration * iter_s / 3600);
  return 0;
}

// imagenet (ResNet-50) with V = 16 virtual nodes of 32 samples (B = 512).
// With `choose`, VirtualFlow's solver picks n_g GPUs of each type
// (choose_virtual_nodes, catalog speeds, the analytic ring over the chosen
// GPUs) and the job runs on those; with `all` it must use every GPU.
int hetero_sim(const std::string& types, bool choose) {
  constexpr int kIterations = 2000;
  constexpr int kVirtualNodes = 16;
  constexpr int kGlobalBatch = 512;
  std::vector<std::string> nodes{"V100"};
  if (types == "v100+p100") nodes.push_back("P100");
  if (types == "v100+k80") nodes.push_back("K80");
  if (types != "v100" && nodes.size() == 1) throw std::invalid_argument("unknown TYPES '" + types + "'");
  Cluster cluster(nodes_of(nodes, 4));
  const ModelParams& model = ModelCatalog::builtin().at("imagenet");
  std::vector<int> used(nodes.size(), 4);
  if (choose) {
    const Topology topo(cluster);
    const HeteroChoice c = choose_virtual_nodes(
        catalog_groups(cluster, GpuCatalog::builtin(), model, first_gpus(cluster.gpu_count())), kVirtualNodes,
        kGlobalBatch, [&](const std::vector<int>& n) {
          const std::vector<GpuId> ring = used_gpus(n, 4);
          return ring.size() < 2 ? 0.0 : ring_allreduce_time_s(topo, ring, model.gradient_bytes);
        });
    used = c.used;
  }
  const std::vector<GpuId> gpus = used_gpus(used, 4);
  JobSpec job;
  job.id = "hetero";
  job.model = model.name;
  job.gpus = static_cast<int>(gpus.size());
  job.virtual_nodes = kVirtualNodes;
  job.global_batch = kGlobalBatch;
  job.iterations = kIterations;
  const double run_s = replay_one(cluster, job, gpus, true);
  std::string used_text;
  for (std::size_t g = 0; g < nodes.size(); ++g)
    used_text += (g ? "," : "") + nodes[g] + ":" + std::to_string(used[g]);
  std::printf("types=%s gpus=%d used=%s V=%d B=%d iteration_s=%.4f samples_per_s=%.1f\n", types.c_str(),
              cluster.gpu_count(), used_text.c_str(), kVirtualNodes, kGlobalBatch, run_s / kIterations,
              kGlobalBatch * static_cast<double>(kIterations) / run_s);
  return 0;
}

// Solver on Gavel-derived profiles: 4 V100 on one node, plus 4 slower GPUs
// on a second node (the collective then crosses the NIC).
int hetero_profiles() {
  const ThroughputProfiles& profiles = ThroughputProfiles::builtin();
  const ModelCatalog& models = ModelCatalog::builtin();
  struct Case {
    const char* family;
    const char* model;  // for the gradient size
    int global_batch;
  };
  const std::vector<Case> cases = {{"ResNet-50", "imagenet", 512},
                                   {"ResNet-18", "cifar10", 1024},
                                   {"Transformer", "bert", 512},
                                   {"LM", "deepspeech2", 320}};
  std::printf(
      "family\tB\tslow\tmode\tv100_only_sps\tall_gpus_sps\tchosen_sps\tgain_pct\tused_v100\tused_slow\tv100_"
      "local\tslow_local\n");
  for (const Case& c : cases) {
    const double bytes = models.at(c.model).gradient_bytes;
    for (const char* slow : {"P100", "K80"}) {
      const Cluster cluster(nodes_of({"V100", slow}, 4));
      const Topology topo(cluster);
      const double ring_v100 = ring_allreduce_time_s(topo, {0, 1, 2, 3}, bytes);
      const double ring_mixed = ring_allreduce_time_s(topo, {0, 1, 2, 3, 4, 5, 6, 7}, bytes);
      // VirtualFlow's solver prices the ring over the GPUs it uses.
      const CollectiveOf ring_of = [&](const std::vector<int>& used) {
        const std::vector<GpuId> ring = used_gpus(used, 4);
        return ring.size() < 2 ? 0.0 : ring_allreduce_time_s(topo, ring, bytes);
      };
      const ThroughputProfile& v = *profiles.find(c.family, "V100");
      const ThroughputProfile& s = *profiles.find(c.family, slow);
      const std::vector<GpuTypeGroup> both = {v.group("V100", 4), s.group(slow, 4)};
      const auto print = [&](const char* mode, double alone_s, double all_s, const HeteroChoice& chosen,
                             int unit) {
        std::printf("%s\t%d\t%s\t%s\t%.1f\t%.1f\t%.1f\t%+.1f\t%d\t%d\t%d\t%d\n", c.family, c.global_batch,
                    slow, mode, c.global_batch / alone_s, c.global_batch / all_s,
                    c.global_batch / chosen.split.total_s, 100 * (alone_s / chosen.split.total_s - 1),
                    chosen.used[0], chosen.used[1], chosen.split.max_units_per_group[0] * unit,
                    chosen.split.max_units_per_group[1] * unit);
      };
      // Batch mode: any integer local batch, micro-batches up to the
      // largest profiled batch.
      const HeteroSplit alone = split_batch({v.group("V100", 4)}, c.global_batch, ring_v100);
      const HeteroSplit all = split_batch(both, c.global_batch, ring_mixed);
      print("batch", alone.total_s, all.total_s, choose_batch(both, c.global_batch, ring_of), 1);
      // Virtual-node mode: V = 16 equal virtual nodes (4 per V100 alone).
      const int v_count = 16;
      const HeteroSplit vn_alone =
          split_virtual_nodes({v.group("V100", 4)}, v_count, c.global_batch, ring_v100);
      const HeteroSplit vn_all = split_virtual_nodes(both, v_count, c.global_batch, ring_mixed);
      print("vn(V=16)", vn_alone.total_s, vn_all.total_s,
            choose_virtual_nodes(both, v_count, c.global_batch, ring_of), c.global_batch / v_count);
    }
  }
  return 0;
}

const char* const kUsage =
    "usage: virtualflow repro P | hetero-sim v100|v100+p100|v100+k80 [choose|all] | hetero-profiles\n"
    "  repro P          fixed-V imagenet job on P V100s (testbed); reads VNSIM_SHARED's Pollux profiles\n"
    "  hetero-sim TYPES imagenet, V = 16, on 4 V100 (+ 4 P100/K80), heterogeneous split\n"
    "  hetero-profiles  the solver only, on Gavel-derived profiles";

int run(std::vector<std::string>& args) {
  const std::string mode = args.empty() ? "" : args[0];
  if (mode == "repro" && args.size() == 2) {
    const std::size_t p = bench::parse_count(args[1], "P");
    if (p == 0 || p > 1024) throw bench::UsageError("P must be in [1, 1024]");
    return repro(static_cast<int>(p));
  }
  if (mode == "hetero-sim" && (args.size() == 2 || args.size() == 3)) {
    const std::string how = args.size() == 3 ? args[2] : "choose";
    if (how != "choose" && how != "all")
      throw bench::UsageError("hetero-sim: expected choose or all, got " + how);
    return hetero_sim(args[1], how == "choose");
  }
  if (mode == "hetero-profiles" && args.size() == 1) return hetero_profiles();
  throw bench::UsageError(mode.empty() ? "missing mode" : "bad arguments for '" + mode + "'");
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run_bench_cli(argc, argv, kUsage, run);
}
