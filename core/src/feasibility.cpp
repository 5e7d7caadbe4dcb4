#include "vnsim/core/feasibility.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "vnsim/core/goodput.hpp"
#include "vnsim/core/parallel_layout.hpp"
#include "vnsim/core/parameter_server_job.hpp"
#include "vnsim/core/units.hpp"

namespace vnsim {
namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", bytes / units::gib_to_bytes(1));
  return buf;
}

// The GPU type whose memory bounds the job: its constraint, or else the
// largest-memory type of the cluster that the catalog knows.
const GpuType* memory_bounding_type(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus) {
  if (job.gpu_type) return gpus.find(*job.gpu_type);
  const GpuType* best = nullptr;
  for (const auto& name : cluster.gpu_types()) {  // sorted, so ties resolve deterministically
    const GpuType* t = gpus.find(name);
    if (t && (!best || t->memory_bytes > best->memory_bytes)) best = t;
  }
  return best;
}

double micro_batch_memory_bytes(const JobSpec& job, const ModelParams& model) {
  // Virtual nodes run one after another, so a GPU holds one micro-batch at a time.
  const double micro_batch = static_cast<double>(job.global_batch) / job.effective_virtual_nodes();
  return model.memory_needed_bytes(micro_batch);
}

// Bytes per GPU of a job whose model is known and whose layout (if any) is
// valid; nullopt otherwise.
std::optional<double> memory_per_gpu_bytes(const JobSpec& job, const Cluster& cluster,
                                           const ModelCatalog& models) {
  if (uses_layout(job)) {
    const TransformerModel* transformer = find_transformer_model(job.model);
    if (!transformer || why_layout_invalid(job, cluster)) return std::nullopt;
    return layout_memory_per_gpu_bytes(*transformer, job);
  }
  const ModelParams* model = models.find(job.model);
  if (!model || job.effective_virtual_nodes() < 1) return std::nullopt;
  return micro_batch_memory_bytes(job, *model);
}

}  // namespace

GpuTypeMask allowed_gpu_types(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus,
                              const ModelCatalog& models) {
  const std::optional<double> memory = memory_per_gpu_bytes(job, cluster, models);
  if (!memory) return 0;
  const double needed = *memory;
  GpuTypeMask mask = 0;
  const auto& names = cluster.gpu_types();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (job.gpu_type && *job.gpu_type != names[i]) continue;
    const GpuType* t = gpus.find(names[i]);
    if (t && needed <= t->memory_bytes) mask |= GpuTypeMask{1} << i;
  }
  return mask;
}

std::optional<int> virtual_nodes_to_fit(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus,
                                        const ModelCatalog& models) {
  const int own = job.effective_virtual_nodes();
  const ModelParams* model = models.find(job.model);
  if (model == nullptr || uses_layout(job) || job.gpus < 1 || job.global_batch <= 0 || own < 1) return own;
  const GpuType* bound = memory_bounding_type(job, cluster, gpus);
  if (bound == nullptr) return own;
  // A micro-batch holds whole samples, at most as many as fit the memory and
  // the model's profiled range (the goodput policies' limit as well).
  const int samples = max_local_batch_for_memory(*model, bound->memory_bytes);
  if (samples < 1) return std::nullopt;
  const auto micro_batch = [&](int v) { return (job.global_batch + v - 1) / v; };
  if (micro_batch(own) <= samples) return own;
  const int per_gpu = (job.global_batch + job.gpus * samples - 1) / (job.gpus * samples);
  return std::max(own, job.gpus * per_gpu);
}

std::optional<std::string> why_infeasible(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus,
                                          const ModelCatalog& models) {
  if (job.id.empty()) return "job id is empty";
  if (job.gpus < 1) return "requests " + std::to_string(job.gpus) + " GPUs, must be >= 1";
  // A GPU holds 1000 milli: a larger share per GPU can never be granted.
  if (job.gpu_milli < 0 || job.gpu_milli > 1000)
    return "requests gpu_milli " + std::to_string(job.gpu_milli) +
           " per GPU, must be 0 (whole GPUs) or 1..1000";
  if (job.virtual_nodes != 0 && job.virtual_nodes < job.gpus) {
    return "virtual_nodes (" + std::to_string(job.virtual_nodes) + ") must be >= gpus (" +
           std::to_string(job.gpus) + ")";
  }
  if (job.iterations <= 0) return "iterations must be > 0";
  if (job.global_batch <= 0) return "global_batch must be > 0";
  if (!models.find(job.model) && !find_transformer_model(job.model))
    return "unknown model '" + job.model + "'";
  if (uses_layout(job)) {
    if (auto why = why_layout_invalid(job, cluster)) return why;
  }
  if (auto why = why_parameter_server_invalid(job)) return why;

  if (job.gpu_type) {
    const std::string& type = *job.gpu_type;
    if (!gpus.find(type)) return "unknown GPU type '" + type + "'";
    const int available = cluster.gpu_count_of_type(type);
    if (available == 0) return "GPU type '" + type + "' not in cluster";
    if (job.gpus > available) {
      return "requests " + std::to_string(job.gpus) + " GPUs of type " + type + ", cluster has " +
             std::to_string(available);
    }
  } else if (job.gpus > cluster.gpu_count()) {
    return "requests " + std::to_string(job.gpus) + " GPUs, cluster has " +
           std::to_string(cluster.gpu_count());
  }

  const GpuType* bound = memory_bounding_type(job, cluster, gpus);
  if (!bound) return "no GPU type of the cluster is in the GPU catalog";
  const double needed = *memory_per_gpu_bytes(job, cluster, models);
  if (needed > bound->memory_bytes) {
    const std::string under = uses_layout(job) ? " under layout " + describe(layout_of(job)) : "";
    std::string why = "needs " + gib(needed) + " GiB per GPU" + under + ", largest allowed GPU (" +
                      bound->name + ") has " + gib(bound->memory_bytes) + " GiB";
    if (!virtual_nodes_to_fit(job, cluster, gpus, models)) {
      const ModelParams& model = *models.find(job.model);
      why += "; no gradient accumulation fits (weights and the smallest micro-batch, " +
             std::to_string(model.min_local_batch) + " sample(s), need " +
             gib(model.memory_needed_bytes(model.min_local_batch)) + " GiB)";
    }
    return why;
  }
  // Smaller GPU types may be too small for the job: count only those that fit.
  const GpuTypeMask allowed = allowed_gpu_types(job, cluster, gpus, models);
  const int fitting = cluster.gpu_count_in(allowed);
  if (job.gpus > fitting) {
    return "requests " + std::to_string(job.gpus) + " GPUs, cluster has only " + std::to_string(fitting) +
           " GPUs with the " + gib(needed) + " GiB per GPU it needs";
  }
  return std::nullopt;
}

}  // namespace vnsim
