// Calibrated synthetic-trace profiles. Every figure is a published statistic
// (source named next to it) or computed from the named file of ../shared/traces;
// the families that join them are documented in docs/TRACES.md.
#include <cmath>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/synthetic_traces.hpp"

namespace vnsim {
namespace {

constexpr double kDayS = 86400;

SyntheticProfile philly() {
  SyntheticProfile p;
  p.name = "philly";
  p.citation =
      "Pollux-derived Philly trace (computed, philly_2017_pollux_full.csv): GPU counts, "
      "p50/p90/p99/mean/max, 31.5 jobs/h";
  for (const auto& w : philly_gpu_count_weights()) p.sizes.push_back({w.gpus, static_cast<double>(w.jobs)});
  p.durations.knots = philly_duration_knots();
  p.jobs_per_hour = 31.5;
  return p;
}

SyntheticProfile helios() {
  SyntheticProfile p;
  p.name = "helios";
  p.citation =
      "InternLM/AcmeTrace data/cluster_summary.csv, row Helios: mean 3.72 GPUs, median 1, max 2,048; "
      "run time median 206 s, mean 6,652 s, max 4,320,009 s; "
      "rate: Venus 125,214 GPU jobs over 2020-04-01 -> 2020-09-28 (180 days, computed)";
  p.sizes = geometric_power_of_two_sizes(2048, 3.72, 1.0);
  p.durations = clamped_lognormal(206, 6652, 4320009);
  p.jobs_per_hour = 125214.0 / (180 * 24);
  return p;
}

SyntheticProfile pai() {
  SyntheticProfile p;
  p.name = "pai";
  p.citation =
      "InternLM/AcmeTrace data/cluster_summary.csv, row PAI: mean 0.68 GPUs, median 0.5, max 8; "
      "run time median 481 s, mean 4,787 s; "
      "rate: 1,037,085 GPU jobs over Jul-Aug 2020 (62 days), also the duration cap";
  // A job of at most one GPU counts at the published median request (0.5).
  p.sizes = geometric_power_of_two_sizes(8, 0.68, 0.5);
  p.durations = clamped_lognormal(481, 4787, 62 * kDayS);
  p.jobs_per_hour = 1037085.0 / (62 * 24);
  return p;
}

SyntheticProfile openb() {
  SyntheticProfile p;
  p.name = "openb";
  p.citation =
      "Alibaba GPU 2023 openb (computed, alibaba_gpu_2023_openb_sample_2k.csv): "
      "GPU pods 1 GPU 1,718, 2 GPUs 1, 8 GPUs 6; "
      "lifetime median 370 s, p90 9,431 s, p99 3,235,727 s, max 12,537,496 s; "
      "rate: 8,152 pods over the 149.3-day creation span (pod creation times, not an arrival process)";
  p.sizes = {{1, 1718}, {2, 1}, {8, 6}};
  constexpr double kMedian = 370, kP90 = 9431, kP99 = 3235727, kMax = 12537496;
  // No minimum is published: extend the p50-p90 segment to p = 0, as for Philly.
  p.durations.knots = {{0.0, kMedian * std::pow(kMedian / kP90, 0.5 / 0.4)},
                       {0.5, kMedian},
                       {0.9, kP90},
                       {0.99, kP99},
                       {1.0, kMax}};
  p.jobs_per_hour = 8152.0 / (149.3 * 24);
  return p;
}

}  // namespace

std::vector<std::string> synthetic_profile_names() {
  return {"philly", "helios", "pai", "openb"};
}

const SyntheticProfile& synthetic_profile(const std::string& name) {
  static const std::vector<SyntheticProfile> profiles = {philly(), helios(), pai(), openb()};
  for (const auto& p : profiles)
    if (p.name == name) return p;
  std::string list;
  for (const auto& n : synthetic_profile_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("unknown synthetic trace kind '" + name + "' (expected one of: " + list + ")");
}

}  // namespace vnsim
