#pragma once
// Gradient noise statistics of a job's training problem, measured on the
// executor's own gradients the way Pollux's agents measure them (AdaptDL's
// gradient noise scale; McCandlish et al., "An Empirical Model of
// Large-Batch Training", 2018, appendix A): from the mean squared norms of
// mean gradients at a small batch b and a big batch B,
//   |G|^2     ~ (B |G_B|^2 - b |G_b|^2) / (B - b)
//   tr(Sigma) ~ (|G_b|^2 - |G_B|^2) / (1/b - 1/B)
// and the noise scale phi = tr(Sigma) / |G|^2 (in samples) that Pollux's
// statistical efficiency (core/goodput.hpp) reads.
#include <functional>
#include <string>
#include <vector>

#include "vnsim/core/model_catalog.hpp"

namespace vnsim::real_exec {

struct GradientNoise {
  double grad_sqr = 0;     // |G|^2
  double trace_sigma = 0;  // per-sample gradient variance, summed over entries
  long long small_batch = 0;
  long long big_batch = 0;
  int draws = 0;
  // phi; +inf when the estimated |G|^2 is not positive (pure noise).
  double noise_scale() const;
};

// The summed gradient of samples [first, first + count), as a backend's data
// plane computes it.
using SummedGradient = std::function<std::vector<double>(long long first, long long count)>;

// `draws` disjoint big batches of `big` samples (from sample 0), each cut
// into big / small batches of `small`; big must be a multiple of small > 0.
GradientNoise measure_gradient_noise(const SummedGradient& summed, long long small, long long big, int draws);

// A noise-scale catalog in the core/data/noise_scale.json format: per model
// a constant phi (the synthetic problem's noise does not change as it
// trains), M0 = the model's initial batch, its max global batch, and the
// measured statistics beside them.
struct MeasuredNoise {
  ModelParams model;
  GradientNoise noise;
};
std::string noise_profile_json(const std::vector<MeasuredNoise>& models);

}  // namespace vnsim::real_exec
