// Calibrated synthetic generators: each profile reproduces the published
// figures it was built from, and the generator is deterministic per seed.
#include "vnsim/traces/synthetic_traces.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

double sample_median_duration(const std::vector<JobSpec>& jobs) {
  std::vector<double> d;
  for (const auto& j : jobs) d.push_back(j.trace_duration_s);
  std::nth_element(d.begin(), d.begin() + static_cast<long>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

double weighted_mean_gpus(const std::vector<SizeWeight>& sizes, double one_counts_as) {
  double sum = 0, total = 0;
  for (const auto& s : sizes) {
    sum += s.weight * (s.gpus == 1 ? one_counts_as : s.gpus);
    total += s.weight;
  }
  return sum / total;
}

TEST(NormalQuantile, MatchesPythonStatisticsNormalDist) {
  // Values of statistics.NormalDist().inv_cdf(p), Python 3.
  const std::pair<double, double> cases[] = {{1e-10, -6.361340902404056},
                                             {0.001, -3.090232306167813},
                                             {0.02, -2.0537489106318225},
                                             {0.3, -0.5244005127080407},
                                             {0.5, 0.0},
                                             {0.9, 1.2815515655446008},
                                             {0.99, 2.3263478740408408},
                                             {0.999999, 4.753424308817089}};
  // 1e-10: near p = 1 the Halley step works on 1 - p, which has lost digits.
  for (const auto& [p, z] : cases) EXPECT_NEAR(normal_quantile(p), z, 1e-10) << p;
}

TEST(SyntheticProfiles, PhillyPoissonEqualsTheEmbeddedPhillyLikeTrace) {
  const auto& p = synthetic_profile("philly");
  const auto a = draw_synthetic_jobs(p, 500, ArrivalProcess{31.5, 0, 14}, 9);
  const auto b = draw_philly_like_jobs(500, 31.5, 9);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].submit_s, b[i].submit_s) << i;
    EXPECT_EQ(a[i].gpus, b[i].gpus) << i;
    EXPECT_EQ(a[i].trace_duration_s, b[i].trace_duration_s) << i;
  }
  EXPECT_EQ(a[3].id, "synthetic-philly-3");
}

TEST(SyntheticProfiles, DistributionsHitThePublishedFigures) {
  // AcmeTrace cluster_summary.csv, rows Helios and PAI: median and mean run time, mean GPUs.
  const auto& helios = synthetic_profile("helios");
  EXPECT_NEAR(helios.durations.quantile(0.5), 206, 1e-6);
  EXPECT_NEAR(helios.durations.mean_s(), 6652, 1e-3);
  EXPECT_NEAR(weighted_mean_gpus(helios.sizes, 1), 3.72, 1e-9);
  EXPECT_EQ(helios.sizes.back().gpus, 2048);
  double total = 0;
  for (const auto& s : helios.sizes) total += s.weight;
  EXPECT_GT(helios.sizes.front().weight / total, 0.5);  // published median: 1 GPU

  const auto& pai = synthetic_profile("pai");
  EXPECT_NEAR(pai.durations.quantile(0.5), 481, 1e-6);
  EXPECT_NEAR(pai.durations.mean_s(), 4787, 1e-3);
  EXPECT_NEAR(weighted_mean_gpus(pai.sizes, 0.5), 0.68, 1e-9);
  EXPECT_EQ(pai.sizes.back().gpus, 8);

  // openb sample and Pollux-derived Philly trace (both computed): quantile knots.
  const auto& openb = synthetic_profile("openb");
  EXPECT_NEAR(openb.durations.quantile(0.5), 370, 1e-9);
  EXPECT_NEAR(openb.durations.quantile(0.9), 9431, 1e-9);
  EXPECT_NEAR(openb.durations.quantile(1.0), 12537496, 1e-6);
  const auto& philly = synthetic_profile("philly");
  EXPECT_NEAR(philly.durations.mean_s(), 13136, 1);
}

TEST(SyntheticProfiles, ClampedLognormalMeanGrowsWithSigma) {
  // Bisection on sigma is valid only if the clamped mean is monotone.
  for (const char* name : {"helios", "pai"}) {
    const auto& d = synthetic_profile(name).durations;
    double previous = 0;
    for (double s = 0.05; s < 6; s += 0.05) {
      DurationModel m = d;
      m.sigma = s;
      EXPECT_GT(m.mean_s(), previous) << name << " sigma " << s;
      previous = m.mean_s();
    }
  }
}

TEST(SyntheticProfiles, SamplesMatchTheirDistributions) {
  for (const auto& name : synthetic_profile_names()) {
    const auto& p = synthetic_profile(name);
    const auto jobs = draw_synthetic_jobs(p, 20000, ArrivalProcess{p.jobs_per_hour, 0, 14}, 3);
    EXPECT_NEAR(sample_median_duration(jobs) / p.durations.quantile(0.5), 1.0, 0.1) << name;
    const double mean_gap = jobs.back().submit_s / static_cast<double>(jobs.size() - 1);
    EXPECT_NEAR(mean_gap / (3600 / p.jobs_per_hour), 1.0, 0.03) << name;
    double total = 0, one = 0;
    for (const auto& s : p.sizes) total += s.weight, one += s.gpus == 1 ? s.weight : 0;
    const double ones = static_cast<double>(
        std::count_if(jobs.begin(), jobs.end(), [](const JobSpec& j) { return j.gpus == 1; }));
    EXPECT_NEAR(ones / 20000, one / total, 0.01) << name;
  }
}

TEST(SyntheticProfiles, DeterministicPerSeedAndSeedMatters) {
  const auto& p = synthetic_profile("helios");
  const auto a = draw_synthetic_jobs(p, 300, ArrivalProcess{p.jobs_per_hour, 0.5, 14}, 11);
  const auto b = draw_synthetic_jobs(p, 300, ArrivalProcess{p.jobs_per_hour, 0.5, 14}, 11);
  const auto c = draw_synthetic_jobs(p, 300, ArrivalProcess{p.jobs_per_hour, 0.5, 14}, 12);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].submit_s, b[i].submit_s);
    EXPECT_EQ(a[i].trace_duration_s, b[i].trace_duration_s);
    differs = differs || a[i].submit_s != c[i].submit_s;
  }
  EXPECT_TRUE(differs);
}

TEST(SyntheticProfiles, DiurnalArrivalsPeakAtThePeakHour) {
  const auto& p = synthetic_profile("philly");
  const auto jobs = draw_synthetic_jobs(p, 40000, ArrivalProcess{100, 0.5, 14}, 5);
  // Rate at hour h is 1 + 0.5 cos(2 pi (h - 14) / 24): the 6 hours around 14:00
  // get about (1 + 0.5 x 0.9003) / (1 - 0.5 x 0.9003) = 2.64 times the jobs
  // of the 6 hours around 02:00 (0.9003 = mean of cos over +-45 degrees).
  double peak = 0, trough = 0;
  for (const auto& j : jobs) {
    const double hour = std::fmod(j.submit_s / 3600, 24);
    if (hour >= 11 && hour < 17) ++peak;
    if (hour < 5 || hour >= 23) ++trough;
  }
  EXPECT_NEAR(peak / trough, 2.64, 0.2);
  // The mean rate stays the one asked for.
  EXPECT_NEAR(static_cast<double>(jobs.size()) / (jobs.back().submit_s / 3600), 100, 3);
}

TEST(SyntheticProfiles, UnknownKindAndBadRatesAreInputErrors) {
  EXPECT_THROW(synthetic_profile("acme"), InputError);
  const auto& p = synthetic_profile("pai");
  EXPECT_THROW(draw_synthetic_jobs(p, 3, ArrivalProcess{0, 0, 14}, 1), InputError);
  EXPECT_THROW(draw_synthetic_jobs(p, 3, ArrivalProcess{1, 1.5, 14}, 1), InputError);
}

}  // namespace
}  // namespace vnsim
