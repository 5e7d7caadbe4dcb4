#pragma once
// The embedded default workload: a Philly-like trace drawn from the
// statistics of the Pollux-derived Philly trace (docs/TRACES.md, "Synthetic
// Philly-like trace"). Deterministic per seed on every platform: only
// std::mt19937_64 raw outputs are used, with our own inverse-CDF sampling.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"

namespace vnsim {

struct GpuCountWeight {
  int gpus;
  int jobs;  // jobs of that size in philly_2017_pollux_full.csv
};
const std::vector<GpuCountWeight>& philly_gpu_count_weights();

// Knots of the duration quantile function; log(duration) is linear in p
// between consecutive knots.
struct DurationKnot {
  double p;
  double duration_s;
};
const std::vector<DurationKnot>& philly_duration_knots();
double philly_duration_quantile(double p);  // p in [0, 1]
double philly_duration_mean_s();            // exact mean of that distribution

// Arrivals (Poisson at jobs_per_hour, first at 0), GPU counts and durations
// only: model and iterations are left for assign_work. Ids "synthetic-<i>".
std::vector<JobSpec> draw_philly_like_jobs(std::size_t n_jobs, double jobs_per_hour, std::uint64_t seed);

// draw_philly_like_jobs + assign_work(seed): durations are run times alone on
// `alone_on` (the 3-argument form uses the "philly-2017" preset).
std::vector<JobSpec> generate_philly_like(std::size_t n_jobs, double jobs_per_hour, std::uint64_t seed,
                                          const Cluster& alone_on);
std::vector<JobSpec> generate_philly_like(std::size_t n_jobs, double jobs_per_hour, std::uint64_t seed);

}  // namespace vnsim
