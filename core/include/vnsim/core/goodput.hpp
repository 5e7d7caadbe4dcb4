#pragma once
// Pollux's goodput model (Qiao et al., OSDI'21, sections 3.1-3.2; petuum/adaptdl
// adaptdl/goodput.py): goodput = throughput x
// statistical efficiency, and the choice of batch size and gradient
// accumulation that maximises it. Statistical efficiency comes from the
// gradient noise scale phi measured in the Pollux profiles, which grows as
// training progresses (scripts/derive_noise_scale.py writes the embedded
// core/data/noise_scale.json).
#include <map>
#include <string>
#include <vector>

#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

// phi as a function of progress, in scale-invariant iterations (one
// optimizer step at the initial batch M0 is one unit).
struct NoiseScaleProfile {
  std::string model;
  int initial_batch = 1;  // M0
  int max_batch = 1;      // largest validated global batch
  double total_progress = 0;
  std::vector<double> progress;  // knots, strictly increasing
  std::vector<double> phi;       // phi at each knot, > 0 (the M0 run's)

  // Per-batch statistics, the Pollux simulator's model (optional; empty
  // epoch_end: phi depends on progress only). Epoch e spans progress
  // [epoch_end[e-1], epoch_end[e]) (the first from 0, the last epoch's
  // statistics continue past its end). In epoch e a global batch M has
  // grad_sqr and grad_var linear in M between the two validated batches
  // around it (clamped to the smallest and largest), and
  // phi = M0 x grad_var / grad_sqr.
  std::vector<double> epoch_end;              // strictly increasing, > 0
  std::vector<int> batches;                   // validated global batches, strictly increasing
  std::vector<std::vector<double>> grad_sqr;  // [batch][epoch], normalised to M0
  std::vector<std::vector<double>> grad_var;  // [batch][epoch], >= 0

  bool per_batch() const { return !epoch_end.empty(); }
  // With per-batch statistics, the epoch whose statistics a step at
  // `progress_units` sees: phi_at(progress, batch) depends on the progress
  // only through it. -1 without per-batch statistics.
  int epoch_at(double progress_units) const;
  // Log-linear between knots, constant outside them.
  double phi_at(double progress_units) const;
  // phi seen by a step at global batch `batch`: the per-batch statistics
  // when present, else phi_at(progress). A non-positive interpolated
  // grad_sqr (pure noise) gives an infinite-like phi: efficiency 1.
  double phi_at(double progress_units, double batch) const;
};

class NoiseScaleCatalog {
 public:
  static const NoiseScaleCatalog& builtin();  // embedded core/data/noise_scale.json
  static NoiseScaleCatalog parse(const std::string& json_text, const std::string& source_name);
  const NoiseScaleProfile* find(const std::string& model) const;  // nullptr when unknown

 private:
  std::map<std::string, NoiseScaleProfile> profiles_;
};

// E(M) = (phi + M0) / (phi + M): progress per sample at batch M relative to
// M0. 1 at M0, decreasing in M, closer to 1 for noisier gradients.
double statistical_efficiency(double phi, double initial_batch, double batch);
// Progress (scale-invariant iterations) made by one optimizer step at batch
// M: (M / M0) x E(M).
double progress_per_step(double phi, double initial_batch, double batch);

// Optimizer steps at a fixed batch to go from progress `from` to `to`, with
// phi following the profile. 1/progress_per_step is integrated piecewise:
// with per-batch statistics phi is constant within each epoch (exact, as the
// Pollux simulator counts steps); otherwise the progress axis is cut into
// kStepsPerKnotInterval pieces per knot interval and phi is taken at each
// piece's middle. Either way the answer is the same whatever the start
// point, and progress_after_steps inverts it.
double steps_between(const NoiseScaleProfile& profile, double batch, double from, double to);
double progress_after_steps(const NoiseScaleProfile& profile, double batch, double from, double steps);
// Steps of a fixed-batch job from the start to the model's training target
// (total_progress): with per-batch statistics, the Pollux simulator's count
// (its jobs end at the last epoch's progress).
double steps_to_target(const NoiseScaleProfile& profile, double batch);

// Adaptive batch in the engine: a job's work is the progress it reaches
// with `spec_iterations` steps at `spec_batch` (so a job that never changes
// batch runs exactly its iterations). With `steps_left` steps to go at
// `old_batch`, returns the steps left at `new_batch` for the same remaining
// progress. Without a profile (noise == nullptr) efficiency is 1 and the
// samples left are kept: steps_left x old_batch / new_batch.
double steps_left_after_batch_change(const NoiseScaleProfile* noise, int spec_batch, double spec_iterations,
                                     int old_batch, double steps_left, int new_batch);

// One (batch, accumulation) candidate and what it yields on K GPUs.
struct BatchChoice {
  int global_batch = 0;        // M = K x (s + 1) x m
  int local_batch = 0;         // m: per-GPU micro-batch
  int accumulation_steps = 0;  // s: extra micro-batches per step (VirtualFlow: s + 1 virtual nodes per GPU)
  double iteration_s = 0;
  double throughput = 0;  // samples/s
  double efficiency = 0;
  double goodput = 0;  // throughput x efficiency, in M0-samples/s
};

// Inputs of the throughput side: the job's model on one GPU type.
struct GoodputInputs {
  const ModelParams* model = nullptr;
  const NoiseScaleProfile* noise = nullptr;
  double gpu_speed = 1.0;   // relative to the reference GPU (GpuType::speed_for)
  int max_local_batch = 1;  // memory limit of the GPU type and the profiled range
  int max_global_batch = 1;
};

// Iteration time of (s + 1) micro-batches of m samples plus the exposed
// gradient sync, as the engine's perf model prices it (no overlap).
double accumulated_iteration_s(const ModelParams& model, double gpu_speed, int local_batch, int accumulation,
                               double sync_s);

// Pollux's GoodputFunction.optimize for K replicas whose gradient sync
// takes sync_s: 50 global batches spaced geometrically from
// max(M0, min_local x K) to max_global_batch; for each, the fewest
// accumulation steps that keep the micro-batch within max_local_batch.
// Batches never shrink below M0. Returns goodput 0 when nothing fits.
BatchChoice best_batch(const GoodputInputs& in, double progress, int replicas, double sync_s);

// The largest micro-batch of `model` whose memory fits `memory_bytes`,
// capped at the profiled max_local_batch; 0 when not even min_local_batch fits.
int max_local_batch_for_memory(const ModelParams& model, double memory_bytes);

}  // namespace vnsim
