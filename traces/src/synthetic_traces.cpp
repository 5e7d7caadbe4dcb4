// Synthetic trace generator (docs/TRACES.md, "Synthetic generators"): the
// sampling machinery; the calibrated profiles are in synthetic_profiles.cpp.
#include "vnsim/traces/synthetic_traces.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

int draw_size(const std::vector<SizeWeight>& sizes, double u) {
  double total = 0;
  for (const auto& s : sizes) total += s.weight;
  const double x = u * total;
  double cumulative = 0;
  for (const auto& s : sizes) {
    cumulative += s.weight;
    if (x < cumulative) return s.gpus;
  }
  return sizes.back().gpus;
}

double knot_quantile(const std::vector<DurationKnot>& knots, double p) {
  if (!(p > 0)) return knots.front().duration_s;
  if (p >= 1) return knots.back().duration_s;
  std::size_t i = 1;
  while (knots[i].p < p) ++i;
  const DurationKnot& a = knots[i - 1];
  const DurationKnot& b = knots[i];
  return a.duration_s * std::pow(b.duration_s / a.duration_s, (p - a.p) / (b.p - a.p));
}

double knot_mean(const std::vector<DurationKnot>& knots) {
  double sum = 0;
  for (std::size_t i = 1; i < knots.size(); ++i) {
    const DurationKnot& a = knots[i - 1];
    const DurationKnot& b = knots[i];
    sum += a.duration_s == b.duration_s
               ? (b.p - a.p) * a.duration_s
               : (b.p - a.p) * (b.duration_s - a.duration_s) / std::log(b.duration_s / a.duration_s);
  }
  return sum;
}

// E[min(X, cap)] for X = median * exp(sigma Z).
double clamped_lognormal_mean(double median, double sigma, double cap) {
  const double lc = std::log(cap / median);
  return median * std::exp(sigma * sigma / 2) * normal_cdf((lc - sigma * sigma) / sigma) +
         cap * (1 - normal_cdf(lc / sigma));
}

}  // namespace

double normal_quantile(double p) {
  if (!(p > 0)) return -INFINITY;
  if (!(p < 1)) return INFINITY;
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x;
  if (p < p_low || p > 1 - p_low) {
    const double q = std::sqrt(-2 * std::log(p < p_low ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - p_low) x = -x;
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // One Halley step takes the approximation's 1e-9 relative error to ~1e-15.
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double DurationModel::quantile(double p) const {
  if (!knots.empty()) return knot_quantile(knots, p);
  return std::min(cap_s, median_s * std::exp(sigma * normal_quantile(p)));
}

double DurationModel::mean_s() const {
  if (!knots.empty()) return knot_mean(knots);
  return clamped_lognormal_mean(median_s, sigma, cap_s);
}

DurationModel clamped_lognormal(double median_s, double mean_s, double cap_s) {
  // The clamped mean grows with sigma over this range (checked by the tests
  // for every profile), so bisection finds the one sigma that matches.
  double lo = 1e-3, hi = 6;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (clamped_lognormal_mean(median_s, mid, cap_s) < mean_s ? lo : hi) = mid;
  }
  DurationModel m;
  m.median_s = median_s;
  m.sigma = 0.5 * (lo + hi);
  m.cap_s = cap_s;
  return m;
}

std::vector<SizeWeight> geometric_power_of_two_sizes(int max_gpus, double mean_gpus,
                                                     double one_gpu_counts_as) {
  auto weights = [max_gpus](double r) {
    std::vector<SizeWeight> w;
    double x = 1;
    for (int g = 1; g <= max_gpus; g *= 2, x *= r) w.push_back({g, x});
    return w;
  };
  auto mean = [one_gpu_counts_as](const std::vector<SizeWeight>& w) {
    double sum = 0, total = 0;
    for (const auto& s : w) {
      sum += s.weight * (s.gpus == 1 ? one_gpu_counts_as : s.gpus);
      total += s.weight;
    }
    return sum / total;
  };
  double lo = 0, hi = 1;  // mean grows with r on [0, 1]
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mean(weights(mid)) < mean_gpus ? lo : hi) = mid;
  }
  return weights(0.5 * (lo + hi));
}

std::vector<JobSpec> draw_synthetic_jobs(const SyntheticProfile& profile, std::size_t n_jobs,
                                         const ArrivalProcess& arrivals, std::uint64_t seed) {
  const double rate = arrivals.jobs_per_hour, amp = arrivals.diurnal_amplitude;
  if (!(rate > 0) || !std::isfinite(rate))
    throw InputError("synthetic trace: jobs per hour must be a positive number, got " + std::to_string(rate));
  if (!(amp >= 0 && amp <= 1)) throw InputError("synthetic trace: diurnal amplitude must be in [0, 1]");
  // Thinning (Lewis and Shedler): candidates at the peak rate, each kept with
  // probability rate(t) / peak rate. With amp = 0 every candidate is kept
  // without a draw, so the Poisson case uses three draws per job.
  const double peak_gap_s = 3600.0 / (rate * (1 + amp));
  const double omega = 2 * std::numbers::pi / 86400.0, peak_s = arrivals.peak_hour * 3600.0;
  std::mt19937_64 rng(seed);
  std::vector<JobSpec> jobs;
  jobs.reserve(n_jobs);
  double clock = 0;
  for (std::size_t i = 0; i < n_jobs; ++i) {
    double t = clock;
    for (;;) {
      t += -std::log1p(-uniform01(rng)) * peak_gap_s;
      if (amp == 0 || uniform01(rng) * (1 + amp) < 1 + amp * std::cos(omega * (t - peak_s))) break;
    }
    if (i > 0) clock = t;
    JobSpec job;
    job.id = "synthetic-" + profile.name + "-" + std::to_string(i);
    job.submit_s = clock;
    job.gpus = draw_size(profile.sizes, uniform01(rng));
    job.trace_duration_s = std::max(1.0, std::round(profile.durations.quantile(uniform01(rng))));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace vnsim
