#pragma once
// What goodput-aware policies (Pollux, Sia, Optimus) believe a job would do
// on some GPUs: the engine's idle-network perf model (compute of the
// micro-batches + ring all-reduce over a canonical placement) combined with
// the statistical efficiency of core/goodput.hpp. These are estimates, not
// the engine's contended times.
#include <map>
#include <string>
#include <tuple>

#include "vnsim/core/goodput.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {

class GoodputEstimator {
 public:
  explicit GoodputEstimator(const ModelCatalog& models = ModelCatalog::builtin(),
                            const GpuCatalog& gpus = GpuCatalog::builtin(),
                            const NoiseScaleCatalog& noise = NoiseScaleCatalog::builtin());

  // Call once per decide(): the caches are per topology.
  void use_topology(const Topology& topology);

  // For the type-unaware policies (Pollux, Optimus), which price a job as
  // one GPU type (the least-memory type of its GPUs; the cluster's first
  // type while they compare allocation sizes): their rings may lie on nodes
  // of any type.
  // Without it, on a cluster whose first type sits on 2-GPU nodes (the
  // K80s of philly-2017), no job could take more than 2 GPUs per node even
  // on the 8-GPU nodes of another type, and every larger job was spread
  // over 2-GPU slices of many nodes.
  void rings_on_any_gpu_type(bool any);

  // Ring all-reduce time of the model's gradient over `replicas` GPUs of
  // `gpu_type` (of any type after rings_on_any_gpu_type(true)) spread evenly
  // over `nodes` nodes (the first nodes that hold them). +inf when the
  // cluster has no such placement.
  double sync_s(const ModelParams& model, const std::string& gpu_type, int nodes, int replicas);

  // The goodput-maximising batch and accumulation on (nodes, replicas), at
  // `progress` (scale-invariant iterations). Goodput 0 when nothing fits.
  // With per-batch noise statistics the answer depends on the progress only
  // through its epoch, so it is memoised per (model, type, nodes, replicas,
  // epoch) for as long as the topology stays: round-based policies ask
  // again every round for the same jobs.
  BatchChoice best(const JobSpec& job, const std::string& gpu_type, double progress, int nodes, int replicas);

  // The job's own global batch on `replicas` GPUs, with the fewest
  // accumulation steps that fit memory: what a fixed-batch policy (Optimus)
  // runs. iteration_s = +inf when the batch cannot be split that way, or
  // when the cluster has no ring to price it (the split is still given).
  BatchChoice fixed_batch(const JobSpec& job, const std::string& gpu_type, int nodes, int replicas);

  // fixed_batch with its goodput: throughput x the statistical efficiency
  // of the job's own batch at `progress` (1 without a noise profile); goodput
  // 0 when the batch cannot be split over `replicas`. What Pollux with
  // adaptive_batch=0 optimises.
  BatchChoice fixed_batch_goodput(const JobSpec& job, const std::string& gpu_type, double progress, int nodes,
                                  int replicas);

  const ModelParams& model(const JobSpec& job) const { return models_.at(job.model); }
  const NoiseScaleProfile* noise(const JobSpec& job) const { return noise_->find(job.model); }
  // Gradient noise profiles other than the constructor's (the executor's
  // measured ones); the catalog must outlive the estimator.
  void use_noise_profiles(const NoiseScaleCatalog& noise) { noise_ = &noise; }
  // The job's total work in progress units: its samples over M0.
  double total_progress(const JobSpec& job) const;
  int max_local_batch(const JobSpec& job, const std::string& gpu_type) const;
  double memory_bytes(const std::string& gpu_type) const { return gpus_.at(gpu_type).memory_bytes; }
  // Calls of best() and fixed_batch_goodput() so far, memoised or not (for
  // tests that count what a round evaluates).
  long goodput_queries() const { return goodput_queries_; }

 private:
  const ModelCatalog& models_;
  const GpuCatalog& gpus_;
  const NoiseScaleCatalog* noise_;
  const Topology* topology_ = nullptr;
  bool rings_on_any_type_ = false;
  long goodput_queries_ = 0;
  std::map<std::tuple<std::string, std::string, int, int>, double> sync_cache_;
  std::map<std::tuple<std::string, std::string, int, int, int>, BatchChoice> best_cache_;
};

}  // namespace vnsim
