#include "vnsim/real_exec/gradient_noise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "vnsim/core/goodput.hpp"

namespace vnsim::real_exec {
namespace {

// |sum / count|^2
double squared_mean_norm(const std::vector<double>& sum, long long count) {
  double s = 0;
  for (double x : sum) s += x * x;
  return s / (static_cast<double>(count) * static_cast<double>(count));
}

}  // namespace

double GradientNoise::noise_scale() const {
  return grad_sqr > 0 ? trace_sigma / grad_sqr : std::numeric_limits<double>::infinity();
}

GradientNoise measure_gradient_noise(const SummedGradient& summed, long long small, long long big,
                                     int draws) {
  if (small < 1 || big <= small || big % small != 0 || draws < 1)
    throw std::invalid_argument(
        "measure_gradient_noise: need 0 < small < big, big a multiple of small, draws >= 1");
  double small_sqr = 0, big_sqr = 0;
  long long smalls = 0;
  for (int d = 0; d < draws; ++d) {
    const long long first = static_cast<long long>(d) * big;
    std::vector<double> total;
    for (long long f = first; f < first + big; f += small) {
      std::vector<double> g = summed(f, small);
      small_sqr += squared_mean_norm(g, small);
      ++smalls;
      if (total.empty()) total.assign(g.size(), 0.0);
      for (std::size_t j = 0; j < g.size(); ++j) total[j] += g[j];
    }
    big_sqr += squared_mean_norm(total, big);
  }
  small_sqr /= static_cast<double>(smalls);
  big_sqr /= draws;
  const auto b = static_cast<double>(small);
  const auto B = static_cast<double>(big);
  GradientNoise out;
  out.grad_sqr = (B * big_sqr - b * small_sqr) / (B - b);
  out.trace_sigma = (small_sqr - big_sqr) / (1 / b - 1 / B);
  out.small_batch = small;
  out.big_batch = big;
  out.draws = draws;
  return out;
}

std::string noise_profile_json(const std::vector<MeasuredNoise>& models) {
  nlohmann::ordered_json doc;
  doc["source"] =
      "vnexec calibrate: gradient noise of the executor's synthetic training problem, measured on the "
      "backend's gradients (McCandlish et al. 2018, appendix A); phi = tr(Sigma) / |G|^2, constant over "
      "training";
  doc["models"] = nlohmann::ordered_json::object();
  for (const MeasuredNoise& m : models) {
    const double phi = m.noise.noise_scale();
    // A non-positive |G|^2 is pure noise: efficiency 1 at every batch.
    const double phi_out = std::isfinite(phi) && phi > 0 ? phi : 1e12;
    nlohmann::ordered_json p;
    p["initial_batch"] = m.model.initial_batch;
    p["max_batch"] = std::max(m.model.initial_batch, m.model.max_global_batch);
    // total_progress only sizes jobs made from the profile (traces' Pollux
    // workloads); executor traces give iterations. The built-in profile's
    // value is kept where one exists.
    const NoiseScaleProfile* builtin = NoiseScaleCatalog::builtin().find(m.model.name);
    p["total_progress"] = builtin ? builtin->total_progress : 1e6;
    p["phi"] = nlohmann::ordered_json::array({nlohmann::ordered_json::array({0.0, phi_out})});
    p["measured"] = {{"grad_sqr", m.noise.grad_sqr},
                     {"trace_sigma", m.noise.trace_sigma},
                     {"small_batch", m.noise.small_batch},
                     {"big_batch", m.noise.big_batch},
                     {"draws", m.noise.draws}};
    doc["models"][m.model.name] = p;
  }
  return doc.dump(2) + "\n";
}

}  // namespace vnsim::real_exec
