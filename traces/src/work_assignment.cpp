// Duration-to-work rule (docs/TRACES.md). A trace duration is the job's run
// time alone on the empty cluster, so T_iter depends only on (model, gpus,
// virtual nodes, global batch, GPU type): it is computed once per key.
#include "vnsim/traces/work_assignment.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "seeded_hash.hpp"
#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

// Seconds per iteration assumed for a job whose model is unknown, so that it
// still reaches the simulator (which rejects it, naming the model).
constexpr double kUnknownModelIterationS = 1.0;

std::int64_t at_least_one(double x) {
  if (!(x >= 1.0)) return 1;
  // Beyond 2^62 the count is meaningless anyway; keep llround defined.
  if (x > 4.6e18) return static_cast<std::int64_t>(4.6e18);
  return static_cast<std::int64_t>(std::llround(x));
}

class AloneIterationTime {
 public:
  AloneIterationTime(const Cluster& cluster, const GpuCatalog& gpus, const ModelCatalog& models)
      : cluster_(cluster), topology_(cluster), gpus_(gpus), models_(models) {}

  double operator()(const JobSpec& job, const ModelParams& model) {
    Key key{job.model, job.gpus, job.virtual_nodes, job.global_batch, job.gpu_type.value_or("")};
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(std::move(key), compute(job, model)).first;
    return it->second;
  }

 private:
  using Key = std::tuple<std::string, int, int, int, std::string>;

  double compute(const JobSpec& job, const ModelParams& model) const {
    JobSpec probe = job;
    probe.iterations = 1;  // feasibility also checks iterations > 0
    if (!why_infeasible(probe, cluster_, gpus_, models_)) {
      if (auto placed = consolidated_gpus_on_empty_cluster(
              cluster_, job.gpus, allowed_gpu_types(probe, cluster_, gpus_, models_))) {
        const Placement placement = spread_virtual_nodes(std::move(*placed), job.virtual_nodes);
        const double t = iteration_time(topology_, gpus_, model, placement, job.global_batch).total_s;
        if (std::isfinite(t) && t > 0) return t;
      }
    }
    return compute_only(job, model);
  }

  // For jobs the cluster can never run: the micro-batches of one GPU, no
  // communication, on the requested GPU type (or the reference GPU).
  double compute_only(const JobSpec& job, const ModelParams& model) const {
    const int vn_per_gpu = (job.virtual_nodes + job.gpus - 1) / job.gpus;
    const double local_batch = static_cast<double>(job.global_batch) / job.virtual_nodes;
    double speed = 1.0;
    if (job.gpu_type)
      if (const GpuType* type = gpus_.find(*job.gpu_type)) speed = type->speed_for(job.model);
    const double t = vn_per_gpu * model.micro_batch_time_s(local_batch) / speed;
    return std::isfinite(t) && t > 0 ? t : kUnknownModelIterationS;
  }

  const Cluster& cluster_;
  Topology topology_;
  const GpuCatalog& gpus_;
  const ModelCatalog& models_;
  std::map<Key, double> cache_;
};

void fill_shape(JobSpec& job, const ModelParams& model) {
  if (job.virtual_nodes <= 0) job.virtual_nodes = job.gpus;
  if (job.global_batch <= 0) job.global_batch = model.default_local_batch * job.virtual_nodes;
}

}  // namespace

std::string model_for_gpu_hours(double gpu_hours, int gpus, std::uint64_t seed, const std::string& job_id) {
  const bool second_option = (traces_detail::hash_seed_and_id(seed, job_id) >> 63) != 0;
  if (gpu_hours < 1) return second_option && gpus == 1 ? "ncf" : "cifar10";
  if (gpu_hours < 10) return second_option ? "bert" : "deepspeech2";
  if (gpu_hours < 100) return "yolov3";
  return "imagenet";
}

void assign_work(std::vector<JobSpec>& jobs, const Cluster& cluster, const GpuCatalog& gpus,
                 const ModelCatalog& models, std::uint64_t seed) {
  AloneIterationTime alone_time(cluster, gpus, models);
  for (auto& job : jobs) {
    if (job.iterations != 0 || job.gpus < 1) continue;
    if (job.trace_duration_s >= 0) {
      if (job.model.empty())
        job.model = model_for_gpu_hours(job.trace_duration_s * job.gpus / 3600.0, job.gpus, seed, job.id);
      const ModelParams* model = models.find(job.model);
      if (model == nullptr) {
        if (job.virtual_nodes <= 0) job.virtual_nodes = job.gpus;
        job.iterations = at_least_one(job.trace_duration_s / kUnknownModelIterationS);
        continue;
      }
      fill_shape(job, *model);
      job.iterations = at_least_one(job.trace_duration_s / alone_time(job, *model));
    } else if (const ModelParams* model = models.find(job.model)) {
      // With a noise profile: the steps at the job's batch to the model's
      // training target, as the Pollux simulator counts them (larger batches
      // make less progress per sample). Else the target's samples / batch.
      const NoiseScaleProfile* noise = NoiseScaleCatalog::builtin().find(job.model);
      const auto samples = model_target_samples(job.model);
      if (!noise && !samples) continue;  // left at 0: the simulator rejects it with a reason
      fill_shape(job, *model);
      job.iterations =
          at_least_one(noise ? steps_to_target(*noise, job.global_batch) : *samples / job.global_batch);
    }
  }
}

void fill_default_batches(std::vector<JobSpec>& jobs, const ModelCatalog& models) {
  for (auto& job : jobs) {
    if (job.iterations <= 0 || job.global_batch > 0 || job.gpus < 1) continue;
    if (const ModelParams* model = models.find(job.model))
      job.global_batch = model->default_local_batch * job.effective_virtual_nodes();
  }
}

}  // namespace vnsim
