#include "vnsim/policies/goodput_estimator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "vnsim/core/perf_model.hpp"

namespace vnsim {

GoodputEstimator::GoodputEstimator(const ModelCatalog& models, const GpuCatalog& gpus,
                                   const NoiseScaleCatalog& noise)
    : models_(models), gpus_(gpus), noise_(&noise) {}

void GoodputEstimator::use_topology(const Topology& topology) {
  if (topology_ != &topology) {
    sync_cache_.clear();
    best_cache_.clear();
  }
  topology_ = &topology;
}

void GoodputEstimator::rings_on_any_gpu_type(bool any) {
  if (any != rings_on_any_type_) {
    sync_cache_.clear();
    best_cache_.clear();
  }
  rings_on_any_type_ = any;
}

double GoodputEstimator::sync_s(const ModelParams& model, const std::string& gpu_type, int nodes,
                                int replicas) {
  if (replicas <= 1) return 0;
  auto key = std::make_tuple(model.name, gpu_type, nodes, replicas);
  if (auto it = sync_cache_.find(key); it != sync_cache_.end()) return it->second;
  const Cluster& cluster = topology_->cluster();
  std::vector<GpuId> ring;
  int nodes_used = 0;
  for (const NodeInfo& n : cluster.nodes()) {
    if (nodes_used == nodes) break;
    std::vector<GpuId> of_type;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g)
      if (rings_on_any_type_ || cluster.gpu(g).type == gpu_type) of_type.push_back(g);
    // Even spread: the first replicas % nodes nodes take one more.
    const int want = replicas / nodes + (nodes_used < replicas % nodes ? 1 : 0);
    if (want == 0 || static_cast<int>(of_type.size()) < want) continue;
    ring.insert(ring.end(), of_type.begin(), of_type.begin() + want);
    ++nodes_used;
  }
  const double t = nodes_used == nodes && static_cast<int>(ring.size()) == replicas
                       ? ring_allreduce_time_s(*topology_, ring, model.gradient_bytes)
                       : std::numeric_limits<double>::infinity();
  sync_cache_.emplace(std::move(key), t);
  return t;
}

int GoodputEstimator::max_local_batch(const JobSpec& job, const std::string& gpu_type) const {
  return max_local_batch_for_memory(model(job), gpus_.at(gpu_type).memory_bytes);
}

double GoodputEstimator::total_progress(const JobSpec& job) const {
  const NoiseScaleProfile* p = noise(job);
  const double m0 = p != nullptr ? p->initial_batch : std::max(1, job.global_batch);
  return static_cast<double>(job.iterations) * job.global_batch / m0;
}

BatchChoice GoodputEstimator::best(const JobSpec& job, const std::string& gpu_type, double progress,
                                   int nodes, int replicas) {
  ++goodput_queries_;
  const NoiseScaleProfile* profile = noise(job);
  if (profile == nullptr) {
    // No noise profile: efficiency 1 at the job's own batch.
    BatchChoice c = fixed_batch(job, gpu_type, nodes, replicas);
    c.efficiency = 1;
    c.goodput = std::isfinite(c.iteration_s) ? c.throughput : 0;
    return c;
  }
  const int epoch = profile->epoch_at(progress);
  auto key = std::make_tuple(job.model, gpu_type, nodes, replicas, epoch);
  if (epoch >= 0)
    if (auto it = best_cache_.find(key); it != best_cache_.end()) return it->second;
  const ModelParams& m = model(job);
  GoodputInputs in{&m, profile, gpus_.at(gpu_type).speed_for(m.name), max_local_batch(job, gpu_type),
                   std::max(m.max_global_batch, profile->max_batch)};
  const double sync = sync_s(m, gpu_type, nodes, replicas);
  const BatchChoice c = std::isfinite(sync) ? vnsim::best_batch(in, progress, replicas, sync) : BatchChoice{};
  if (epoch >= 0) best_cache_.emplace(std::move(key), c);
  return c;
}

BatchChoice GoodputEstimator::fixed_batch(const JobSpec& job, const std::string& gpu_type, int nodes,
                                          int replicas) {
  const ModelParams& m = model(job);
  BatchChoice c;
  c.global_batch = job.global_batch;
  c.iteration_s = std::numeric_limits<double>::infinity();
  const int max_local = max_local_batch(job, gpu_type);
  const double sync = sync_s(m, gpu_type, nodes, replicas);
  if (max_local < 1 || replicas > job.global_batch) return c;
  const double local = static_cast<double>(job.global_batch) / replicas;
  c.accumulation_steps = std::max(0, static_cast<int>(std::ceil(local / max_local)) - 1);
  const double micro = local / (c.accumulation_steps + 1);
  c.local_batch = static_cast<int>(std::ceil(micro));
  // The split that fits memory, even where no canonical ring prices it.
  if (!std::isfinite(sync)) return c;
  c.iteration_s =
      (c.accumulation_steps + 1) * m.micro_batch_time_s(micro) / gpus_.at(gpu_type).speed_for(m.name) + sync;
  c.throughput = job.global_batch / c.iteration_s;
  c.efficiency = 1;
  c.goodput = c.throughput;
  return c;
}

BatchChoice GoodputEstimator::fixed_batch_goodput(const JobSpec& job, const std::string& gpu_type,
                                                  double progress, int nodes, int replicas) {
  ++goodput_queries_;
  BatchChoice c = fixed_batch(job, gpu_type, nodes, replicas);
  if (!std::isfinite(c.iteration_s)) return BatchChoice{};
  if (const NoiseScaleProfile* profile = noise(job))
    c.efficiency = statistical_efficiency(profile->phi_at(progress, c.global_batch), profile->initial_batch,
                                          c.global_batch);
  c.goodput = c.throughput * c.efficiency;
  return c;
}

}  // namespace vnsim
