#include "heavy/heavy_trace.hpp"

#include <algorithm>
#include <cmath>
#include <ios>
#include <random>
#include <stdexcept>
#include <string>

namespace vnsim::bench {

double default_mean_gap_s(int cluster_gpus) {
  return 30.0 * 64.0 / static_cast<double>(cluster_gpus);
}

std::vector<JobSpec> heavy_trace(std::size_t count, std::uint64_t seed, int gpus_per_node,
                                 double mean_gap_s) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> names = {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};
  std::uniform_int_distribution<std::size_t> model_pick(0, names.size() - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> nodes_pick(2, 4);
  std::uniform_int_distribution<int> single_pick(0, 3);
  std::exponential_distribution<double> gap(1.0 / mean_gap_s);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    JobSpec j;
    j.id = "h" + std::to_string(i);
    j.submit_s = std::round(t * 1000) / 1000;
    if (unit(rng) < 0.25) {
      j.gpus = gpus_per_node * nodes_pick(rng);
    } else {
      j.gpus = std::min(gpus_per_node, 1 << single_pick(rng));
    }
    j.virtual_nodes = j.gpus;
    j.iterations = static_cast<long long>(std::llround(std::pow(10.0, 2.0 + 6.0 * unit(rng))));
    const ModelParams& m = ModelCatalog::builtin().at(names[model_pick(rng)]);
    j.model = m.name;
    j.global_batch = j.gpus * m.default_local_batch;
    jobs.push_back(j);
    t += gap(rng);
  }
  return jobs;
}

double mean_gap_for_load(double mean_alone_gpu_s, double load, int cluster_gpus) {
  if (!(load > 0) || !std::isfinite(load)) throw std::invalid_argument("load must be a positive number");
  return mean_alone_gpu_s / (load * static_cast<double>(cluster_gpus));
}

std::vector<JobSpec> heavy_trace_at_load(std::size_t count, std::uint64_t seed, const Cluster& cluster,
                                         const GpuCatalog& gpus, const ModelCatalog& models, double load) {
  const int per_node = cluster.max_gpus_per_node();
  const std::vector<JobSpec> drawn =
      heavy_trace(count, seed, per_node, default_mean_gap_s(cluster.gpu_count()));
  const double mean_work = alone_gpu_seconds(drawn, cluster, gpus, models) / static_cast<double>(count);
  return heavy_trace(count, seed, per_node, mean_gap_for_load(mean_work, load, cluster.gpu_count()));
}

void write_heavy_jsonl(std::ostream& out, const std::vector<JobSpec>& jobs, bool millisecond_submits) {
  for (const JobSpec& j : jobs) {
    out << "{\"id\": \"" << j.id << "\", \"submit_s\": ";
    if (millisecond_submits) {
      const auto flags = out.flags();
      const auto precision = out.precision(3);
      out << std::fixed << j.submit_s;
      out.flags(flags);
      out.precision(precision);
    } else {
      out << j.submit_s;
    }
    out << ", \"gpus\": " << j.gpus << ", \"model\": \"" << j.model
        << "\", \"virtual_nodes\": " << j.virtual_nodes << ", \"iterations\": " << j.iterations
        << ", \"global_batch\": " << j.global_batch << "}\n";
  }
}

}  // namespace vnsim::bench
