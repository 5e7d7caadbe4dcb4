#pragma once
// Model catalog: per-model performance parameters derived from the Pollux
// profiles (scripts/derive_model_catalog.py writes core/data/models.json).
// Times are on the reference GPU (GpuCatalog::reference()).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vnsim {

struct ModelParams {
  std::string name;
  // Forward+backward time of one micro-batch of m samples on the reference
  // GPU: alpha_c + beta_c * m seconds (Pollux's T_grad).
  double alpha_compute_s = 0;
  double beta_compute_s = 0;
  double gradient_bytes = 0;           // parameter/gradient size all-reduced per step (fp32)
  double weight_state_bytes = 0;       // weights + optimizer state + gradient buffer, resident per GPU
  double memory_per_sample_bytes = 0;  // activation memory per sample of a micro-batch
  int min_local_batch = 1;
  int max_local_batch = 1;      // largest micro-batch profiled (memory bound on the reference GPU)
  int default_local_batch = 1;  // micro-batch used when a trace gives none
  int initial_batch = 1;        // M0: smallest global batch validated
  int max_global_batch = 1;
  double overlap_gamma = 1.0;  // Pollux gamma-norm of compute/sync overlap (1 = none)
  // Fraction f of a step's compute (the tail of the backward pass) during
  // which bucketed gradient all-reduce runs, as in DDP: step = (1-f)*C +
  // max(f*C, A). 0 = no overlap (the catalog default), 1 = full overlap.
  double overlap_fraction = 0.0;
  // A model calibration's start charge (s): when set, every start, resume and
  // checkpoint-restart move of the job costs this long instead of the
  // cluster's restart delay, checkpoint save and restore, as the Sia
  // artifact's simulator charges its per-model rescale_time. Unset (the
  // catalog default): the cluster's elasticity costs, nothing on a start.
  std::optional<double> start_charge_s;
  // Per step, on each GPU, outside its micro-batches and the all-reduce:
  // zeroing the gradient, the optimizer update and the step's own
  // synchronisation (s, at the reference GPU's speed). 0 in the catalog,
  // whose compute lines come from whole-iteration profiles; measured by
  // `vnexec calibrate`, where a tiny model's step is a fraction of a
  // millisecond and these are 5-10% of it.
  double step_overhead_s = 0;
  // Standard deviation of one GPU's compute in a step (s). A data-parallel
  // step waits for its slowest GPU, so N GPUs of equal mean take
  // compute_jitter_s x E[max of N standard normals] longer than one
  // (0 for one GPU; 0.56 sigma for two). 0 in the catalog.
  double compute_jitter_s = 0;

  double micro_batch_time_s(double local_batch) const {
    return alpha_compute_s + beta_compute_s * local_batch;
  }
  // What a step of `gpus` GPUs adds to its slowest GPU's micro-batches.
  double step_extra_s(int gpus) const;
  double memory_needed_bytes(double local_batch) const {
    return weight_state_bytes + memory_per_sample_bytes * local_batch;
  }
};

class ModelCatalog {
 public:
  static const ModelCatalog& builtin();  // embedded core/data/models.json, with the selected calibration
  static const ModelCatalog& builtin_uncalibrated();  // embedded core/data/models.json as written
  // Selects a named calibration of the embedded core/data/model_calibration.json
  // for builtin() (one per process, as the CLI's --model-calibration). Throws
  // InputError for an unknown name, std::logic_error once builtin() (or
  // GpuCatalog::builtin()) was used. Defined in model_calibration.cpp.
  static void select_builtin_calibration(const std::string& name);
  // This catalog with each named model's step slowed by its factor s: compute
  // (alpha, beta) and gradient bytes times s, so the step takes ~s times as
  // long everywhere it is priced. Throws InputError for an unknown model or s <= 0.
  ModelCatalog with_slowdowns(const std::map<std::string, double>& slowdown) const;
  // This catalog with the named models' overlap fractions replaced (each in [0, 1]).
  ModelCatalog with_overlap_fractions(const std::map<std::string, double>& overlap_fraction) const;
  // This catalog with a start charge on every model: `by_model`'s value for
  // the models it names, `default_s` for the others (each >= 0).
  ModelCatalog with_start_charges(const std::map<std::string, double>& by_model, double default_s) const;
  static ModelCatalog parse(const std::string& json_text, const std::string& source_name);

  const ModelParams* find(const std::string& name) const;
  const ModelParams& at(const std::string& name) const;  // throws InputError when unknown
  std::vector<std::string> names() const;

 private:
  std::map<std::string, ModelParams> models_;
};

}  // namespace vnsim
