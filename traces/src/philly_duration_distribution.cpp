// Duration distribution of the synthetic Philly-like trace, calibrated to the
// statistics of the Pollux-derived Philly trace (philly_2017_pollux_full.csv,
// petuum/adaptdl osdi21-artifact simulator/traces/philly.csv; computed):
// median 1,144 s, p90 11,265 s, p99 254,758 s, max 4,628,226 s, mean 13,136 s.
#include <cmath>

#include "vnsim/traces/synthetic_philly.hpp"

namespace vnsim {
namespace {

constexpr double kMedianS = 1144, kP90S = 11265, kP99S = 254758, kMaxS = 4628226, kMeanS = 13136;
// The p99.9 knot is not published: it is solved so the mean matches kMeanS.
constexpr double kTailKnotP = 0.999;

// Mean of d(p) over [a.p, b.p] times the width: the logarithmic mean of the
// end values, since log d is linear in p.
double segment_integral(const DurationKnot& a, const DurationKnot& b) {
  const double width = b.p - a.p;
  if (a.duration_s == b.duration_s) return width * a.duration_s;
  return width * (b.duration_s - a.duration_s) / std::log(b.duration_s / a.duration_s);
}

double mean_of(const std::vector<DurationKnot>& knots) {
  double sum = 0;
  for (std::size_t i = 1; i < knots.size(); ++i) sum += segment_integral(knots[i - 1], knots[i]);
  return sum;
}

std::vector<DurationKnot> build_knots() {
  // p0: the p50-p90 segment extended down to p = 0 (no minimum is published).
  const double p0 = kMedianS * std::pow(kMedianS / kP90S, 0.5 / 0.4);
  std::vector<DurationKnot> knots = {{0.0, p0},     {0.5, kMedianS},     {0.9, kP90S},
                                     {0.99, kP99S}, {kTailKnotP, kP99S}, {1.0, kMaxS}};
  // The mean grows with the p99.9 knot; bisect it between p99 and the max.
  double lo = kP99S, hi = kMaxS;
  for (int i = 0; i < 200; ++i) {
    knots[4].duration_s = 0.5 * (lo + hi);
    (mean_of(knots) < kMeanS ? lo : hi) = knots[4].duration_s;
  }
  return knots;
}

}  // namespace

const std::vector<DurationKnot>& philly_duration_knots() {
  static const std::vector<DurationKnot> knots = build_knots();
  return knots;
}

double philly_duration_quantile(double p) {
  const auto& knots = philly_duration_knots();
  if (!(p > 0)) return knots.front().duration_s;
  if (p >= 1) return knots.back().duration_s;
  std::size_t i = 1;
  while (knots[i].p < p) ++i;
  const DurationKnot& a = knots[i - 1];
  const DurationKnot& b = knots[i];
  const double t = (p - a.p) / (b.p - a.p);
  return a.duration_s * std::pow(b.duration_s / a.duration_s, t);
}

double philly_duration_mean_s() {
  return mean_of(philly_duration_knots());
}

}  // namespace vnsim
