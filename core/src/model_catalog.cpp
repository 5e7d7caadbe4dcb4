#include "vnsim/core/model_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

#include "strict_json.hpp"
#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_calibration.hpp"

namespace vnsim {
namespace {

using strict_json::field_path;
using strict_json::Json;
using strict_json::Reader;

const std::vector<std::string_view> kTopLevelKeys = {"derived_by", "source", "reference_gpu", "models"};
// The last five are informational outputs of scripts/derive_model_catalog.py
// (docs/MODELS.md); the simulator does not use them.
const std::vector<std::string_view> kModelKeys = {"alpha_compute_s",
                                                  "beta_compute_s",
                                                  "gradient_bytes",
                                                  "weight_state_bytes",
                                                  "memory_per_sample_bytes",
                                                  "min_local_batch",
                                                  "max_local_batch",
                                                  "default_local_batch",
                                                  "initial_batch",
                                                  "max_global_batch",
                                                  "overlap_gamma",
                                                  "overlap_fraction",
                                                  "step_overhead_s",
                                                  "compute_jitter_s",
                                                  "start_charge_s",
                                                  "parameter_count",
                                                  "optimizer",
                                                  "state_copies",
                                                  "fit_points",
                                                  "fit_rmse_s"};

ModelParams parse_model(const Reader& r, const std::string& name, const Json& m, const std::string& path) {
  if (!m.is_object()) r.fail(path, "must be an object");
  r.allow_only(m, path, kModelKeys);
  ModelParams p;
  p.name = name;
  p.alpha_compute_s = r.number_at_least(m, path, "alpha_compute_s", 0);
  p.beta_compute_s = r.number_at_least(m, path, "beta_compute_s", 0);
  if (p.alpha_compute_s + p.beta_compute_s <= 0) {
    r.fail(path, "alpha_compute_s + beta_compute_s must be > 0 (a step cannot take no time)");
  }
  p.gradient_bytes = r.number_at_least(m, path, "gradient_bytes", 1);
  p.weight_state_bytes = r.number_at_least(m, path, "weight_state_bytes", 0);
  p.memory_per_sample_bytes = r.number_at_least(m, path, "memory_per_sample_bytes", 0);
  p.min_local_batch = r.integer_at_least(m, path, "min_local_batch", 1);
  p.max_local_batch = r.integer_at_least(m, path, "max_local_batch", p.min_local_batch);
  p.default_local_batch = r.integer_at_least(m, path, "default_local_batch", p.min_local_batch);
  if (p.default_local_batch > p.max_local_batch) {
    r.fail(field_path(path, "default_local_batch"),
           "must be <= max_local_batch (" + std::to_string(p.max_local_batch) + ")");
  }
  p.initial_batch = r.integer_at_least(m, path, "initial_batch", 1);
  p.max_global_batch = r.integer_at_least(m, path, "max_global_batch", p.initial_batch);
  p.overlap_gamma = r.number_at_least(m, path, "overlap_gamma", 1);
  if (p.overlap_gamma > 10) r.fail(field_path(path, "overlap_gamma"), "must be in [1, 10] (Pollux's bounds)");
  if (m.contains("overlap_fraction")) {
    p.overlap_fraction = r.number_at_least(m, path, "overlap_fraction", 0);
    if (p.overlap_fraction > 1) r.fail(field_path(path, "overlap_fraction"), "must be in [0, 1]");
  }
  if (m.contains("step_overhead_s")) p.step_overhead_s = r.number_at_least(m, path, "step_overhead_s", 0);
  if (m.contains("compute_jitter_s")) p.compute_jitter_s = r.number_at_least(m, path, "compute_jitter_s", 0);
  if (m.contains("start_charge_s")) p.start_charge_s = r.number_at_least(m, path, "start_charge_s", 0);
  return p;
}

// E[max of n independent standard normals] = integral of x d(Phi(x)^n),
// by the midpoint rule on [-9, 9] (0.5642 for n = 2, 1.0294 for 4, 1.5388
// for 10, as tabulated by Tippett, Biometrika 17, 1925).
double expected_max_of_normals_uncached(int n) {
  if (n <= 1) return 0;
  constexpr int kSteps = 4000;
  constexpr double kLo = -9, kWidth = 18.0 / kSteps;
  double sum = 0;
  for (int i = 0; i < kSteps; ++i) {
    const double x = kLo + (i + 0.5) * kWidth;
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    sum += x * n * pdf * std::pow(cdf, n - 1) * kWidth;
  }
  return sum;
}

double expected_max_of_normals(int n) {
  static const std::vector<double> small = [] {
    std::vector<double> v;
    for (int k = 0; k <= 64; ++k) v.push_back(expected_max_of_normals_uncached(k));
    return v;
  }();
  return n <= 64 ? small[static_cast<std::size_t>(std::max(n, 0))] : expected_max_of_normals_uncached(n);
}

}  // namespace

double ModelParams::step_extra_s(int gpus) const {
  if (compute_jitter_s == 0) return step_overhead_s;
  return step_overhead_s + compute_jitter_s * expected_max_of_normals(gpus);
}

ModelCatalog ModelCatalog::parse(const std::string& json_text, const std::string& source_name) {
  const Reader r(source_name, strict_json::Wording::terse);
  const Json doc = r.parse_object_document(json_text);
  r.allow_only(doc, "", kTopLevelKeys);
  const Json& models = r.require(doc, "", "models");
  if (!models.is_object() || models.empty()) r.fail("models", "must be a non-empty object");

  ModelCatalog catalog;
  for (const auto& [name, m] : models.items()) {
    if (name.empty()) r.fail("models", "model name must not be empty");
    catalog.models_.emplace(name, parse_model(r, name, m, "models." + name));
  }
  return catalog;
}

const ModelCatalog& ModelCatalog::builtin_uncalibrated() {
  static const ModelCatalog catalog = [] {
    const auto text = embedded_file("models.json");
    if (!text) throw std::logic_error("models.json is not embedded in the binary");
    return parse(std::string(*text), "models.json (built in)");
  }();
  return catalog;
}

const ModelCatalog& ModelCatalog::builtin() {
  static const ModelCatalog catalog = [] {
    const ModelCatalog& plain = builtin_uncalibrated();
    const auto& calibration = builtin_model_calibration(plain, GpuCatalog::builtin_uncalibrated());
    return calibration ? calibration->apply(plain) : plain;
  }();
  return catalog;
}

ModelCatalog ModelCatalog::with_overlap_fractions(
    const std::map<std::string, double>& overlap_fraction) const {
  ModelCatalog out = *this;
  for (const auto& [model, f] : overlap_fraction) {
    const auto it = out.models_.find(model);
    if (it == out.models_.end()) throw InputError("model calibration: unknown model '" + model + "'");
    if (!(f >= 0 && f <= 1))
      throw InputError("model calibration: overlap_fraction of '" + model + "' must be in [0, 1]");
    it->second.overlap_fraction = f;
  }
  return out;
}

ModelCatalog ModelCatalog::with_start_charges(const std::map<std::string, double>& by_model,
                                              double default_s) const {
  if (!(default_s >= 0) || !std::isfinite(default_s))
    throw InputError("model calibration: the default start charge must be >= 0");
  for (const auto& [model, s] : by_model) {
    if (!models_.contains(model)) throw InputError("model calibration: unknown model '" + model + "'");
    if (!(s >= 0) || !std::isfinite(s))
      throw InputError("model calibration: start charge of '" + model + "' must be >= 0");
  }
  ModelCatalog out = *this;
  for (auto& [name, params] : out.models_) {
    const auto it = by_model.find(name);
    params.start_charge_s = it == by_model.end() ? default_s : it->second;
  }
  return out;
}

ModelCatalog ModelCatalog::with_slowdowns(const std::map<std::string, double>& slowdown) const {
  ModelCatalog out = *this;
  for (const auto& [name, s] : slowdown) {
    const auto it = out.models_.find(name);
    if (it == out.models_.end()) throw InputError("model calibration: unknown model '" + name + "'");
    if (!(s > 0) || !std::isfinite(s))
      throw InputError("model calibration: slowdown of '" + name + "' must be > 0");
    it->second.alpha_compute_s *= s;
    it->second.beta_compute_s *= s;
    it->second.gradient_bytes *= s;
  }
  return out;
}

const ModelParams* ModelCatalog::find(const std::string& name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : &it->second;
}

const ModelParams& ModelCatalog::at(const std::string& name) const {
  if (const auto* p = find(name)) return *p;
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown model '" + name + "' (known: " + known + ")");
}

std::vector<std::string> ModelCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& [name, params] : models_) out.push_back(name);
  return out;
}

}  // namespace vnsim
