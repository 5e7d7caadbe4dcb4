#pragma once
// Synthetic traces calibrated to the published statistics of each public
// trace (docs/TRACES.md, "Synthetic generators"; each figure and its source
// is in synthetic_profiles.cpp). Deterministic per seed: only raw
// std::mt19937_64 outputs are used, with our own inverse-CDF sampling.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/synthetic_philly.hpp"

namespace vnsim {

struct SizeWeight {
  int gpus;
  double weight;  // relative
};

// Durations: either knots of a log-linear quantile function (as the
// Philly-like trace), or a lognormal through the median, clamped at a cap,
// whose sigma makes the clamped mean equal a target mean.
struct DurationModel {
  std::vector<DurationKnot> knots;  // used when non-empty
  double median_s = 0, sigma = 0, cap_s = 0;
  double quantile(double p) const;  // p in [0, 1]
  double mean_s() const;            // exact mean of the distribution
};

struct SyntheticProfile {
  std::string name;      // "philly", "helios", "pai", "openb"
  std::string citation;  // where every figure comes from
  std::vector<SizeWeight> sizes;
  DurationModel durations;
  double jobs_per_hour = 0;  // default arrival rate
};

std::vector<std::string> synthetic_profile_names();
const SyntheticProfile& synthetic_profile(const std::string& name);  // throws InputError when unknown

// Geometric weights over 1, 2, 4, ..., max_gpus (weight of 2^k = r^k), with
// r solved so that the mean size is `mean_gpus`, a job of 1 GPU counting as
// `one_gpu_counts_as` GPUs in that mean (docs/TRACES.md explains PAI's 0.5).
std::vector<SizeWeight> geometric_power_of_two_sizes(int max_gpus, double mean_gpus,
                                                     double one_gpu_counts_as);
// Lognormal through median_s whose mean, clamped at cap_s, is mean_s.
DurationModel clamped_lognormal(double median_s, double mean_s, double cap_s);

// Standard normal quantile (Acklam's rational approximation refined by one
// Halley step); the CDF is 0.5 erfc(-x / sqrt 2).
double normal_quantile(double p);

struct ArrivalProcess {
  double jobs_per_hour = 0;      // mean rate
  double diurnal_amplitude = 0;  // 0: Poisson; in (0, 1]: rate x (1 + A cos(2 pi (t - peak) / 1 day))
  double peak_hour = 14;         // hour of the day (t = 0 is midnight) with the highest rate
};

// n jobs: first at 0, ids "synthetic-<profile>-<i>", GPUs and durations
// (whole seconds, >= 1) only; model and iterations are left for assign_work.
std::vector<JobSpec> draw_synthetic_jobs(const SyntheticProfile& profile, std::size_t n_jobs,
                                         const ArrivalProcess& arrivals, std::uint64_t seed);

}  // namespace vnsim
