// Synthetic Philly-like trace (docs/TRACES.md). All random numbers come from
// raw std::mt19937_64 outputs (whose sequence the standard fixes), never
// from std:: distributions (whose algorithms it does not).
#include "vnsim/traces/synthetic_philly.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "seeded_hash.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/traces/work_assignment.hpp"

namespace vnsim {
namespace {

// Uniform in [0, 1) from the top 53 bits.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

int draw_gpu_count(double u) {
  const auto& weights = philly_gpu_count_weights();
  long total = 0;
  for (const auto& w : weights) total += w.jobs;
  const auto k = static_cast<long>(u * static_cast<double>(total));
  long cumulative = 0;
  for (const auto& w : weights) {
    cumulative += w.jobs;
    if (k < cumulative) return w.gpus;
  }
  return weights.back().gpus;
}

// Philly's VCs with their job counts, counted in the `cluster` column of
// shared/traces/philly_2017_pollux_full.csv (82,247 jobs, 15 VCs).
struct VcWeight {
  const char* vc;
  long jobs;
};
const std::vector<VcWeight>& philly_vc_weights() {
  static const std::vector<VcWeight> weights = {
      {"6214e9", 41226}, {"11cb48", 16091}, {"6c71a0", 9953}, {"b436b2", 7423}, {"103959", 1934},
      {"ee9e8c", 1511},  {"0e4a51", 1435},  {"ed69ec", 1137}, {"7f04ca", 723},  {"2869ce", 422},
      {"e13805", 374},   {"23dbec", 8},     {"51b7ef", 4},    {"925e2b", 3},    {"795a4c", 3}};
  return weights;
}

// A VC drawn by the published job shares from a hash of (seed, job id), so
// the three mt19937_64 draws per job, and with them every other field, stay
// as they were.
std::string draw_philly_vc(std::uint64_t seed, const std::string& job_id) {
  long total = 0;
  for (const auto& w : philly_vc_weights()) total += w.jobs;
  const double u =
      static_cast<double>(traces_detail::hash_seed_and_id(seed ^ 0x5643ULL, job_id) >> 11) * 0x1.0p-53;
  const auto k = static_cast<long>(u * static_cast<double>(total));
  long cumulative = 0;
  for (const auto& w : philly_vc_weights()) {
    cumulative += w.jobs;
    if (k < cumulative) return w.vc;
  }
  return philly_vc_weights().back().vc;
}

}  // namespace

const std::vector<GpuCountWeight>& philly_gpu_count_weights() {
  // Counted in shared/traces/philly_2017_pollux_full.csv (82,247 jobs);
  // shares 1 / 2 / 4 / 8 / >8 GPUs = 93.17 / 2.21 / 2.27 / 2.00 / 0.35 %.
  static const std::vector<GpuCountWeight> weights = {{1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7},
                                                      {16, 199},  {24, 7},   {32, 67},  {64, 6},   {128, 3}};
  return weights;
}

std::vector<JobSpec> draw_philly_like_jobs(std::size_t n_jobs, double jobs_per_hour, std::uint64_t seed) {
  if (!(jobs_per_hour > 0) || !std::isfinite(jobs_per_hour))
    throw InputError("synthetic trace: jobs per hour must be a positive number, got " +
                     std::to_string(jobs_per_hour));
  const double mean_gap_s = 3600.0 / jobs_per_hour;
  std::mt19937_64 rng(seed);
  std::vector<JobSpec> jobs;
  jobs.reserve(n_jobs);
  double clock = 0;
  for (std::size_t i = 0; i < n_jobs; ++i) {
    // Three draws per job in a fixed order, so job i depends only on (seed, i).
    const double gap = -std::log1p(-uniform01(rng)) * mean_gap_s;
    const int gpus = draw_gpu_count(uniform01(rng));
    const double duration = std::max(1.0, std::round(philly_duration_quantile(uniform01(rng))));
    if (i > 0) clock += gap;
    JobSpec job;
    job.id = "synthetic-" + std::to_string(i);
    job.submit_s = clock;
    job.gpus = gpus;
    job.trace_duration_s = duration;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<JobSpec> generate_philly_like(std::size_t n_jobs, double jobs_per_hour, std::uint64_t seed,
                                          const Cluster& alone_on) {
  std::vector<JobSpec> jobs = draw_philly_like_jobs(n_jobs, jobs_per_hour, seed);
  for (JobSpec& job : jobs) job.vc = draw_philly_vc(seed, job.id);
  assign_work(jobs, alone_on, GpuCatalog::builtin(), ModelCatalog::builtin(), seed);
  return jobs;
}

std::vector<JobSpec> generate_philly_like(std::size_t n_jobs, double jobs_per_hour, std::uint64_t seed) {
  const Cluster philly(load_cluster_spec("philly-2017"));
  return generate_philly_like(n_jobs, jobs_per_hour, seed, philly);
}

}  // namespace vnsim
