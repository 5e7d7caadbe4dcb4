#include "vnsim/core/model_catalog.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

using nlohmann::json;

std::string format_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw InputError(source_ + ": " + path + ": " + reason);
  }

  const json& field(const json& obj, const std::string& path, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(path, key), "missing required field");
    return *it;
  }

  double number(const json& obj, const std::string& path, const std::string& key, double min) const {
    const json& v = field(obj, path, key);
    if (!v.is_number()) fail(join(path, key), "must be a number");
    const double x = v.get<double>();
    if (!(x >= min)) fail(join(path, key), "must be >= " + format_number(min) + ", got " + v.dump());
    return x;
  }

  int integer(const json& obj, const std::string& path, const std::string& key, int min) const {
    const json& v = field(obj, path, key);
    if (!v.is_number_integer()) fail(join(path, key), "must be an integer");
    const auto x = v.get<long long>();
    if (x < min || x > 1'000'000'000) {
      fail(join(path, key), "must be in [" + std::to_string(min) + ", 1e9], got " + v.dump());
    }
    return static_cast<int>(x);
  }

  // Typos in a hand-edited catalog would otherwise be silently ignored.
  void only_known_keys(const json& obj, const std::string& path, const std::set<std::string>& known) const {
    for (const auto& [key, value] : obj.items()) {
      if (!known.count(key)) fail(join(path, key), "unknown field");
    }
  }

 private:
  std::string source_;
};

const std::set<std::string> kTopLevelKeys = {"derived_by", "source", "reference_gpu", "models"};
// The last five are informational outputs of scripts/derive_model_catalog.py
// (docs/MODELS.md); the simulator does not use them.
const std::set<std::string> kModelKeys = {"alpha_compute_s",
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
                                          "parameter_count",
                                          "optimizer",
                                          "state_copies",
                                          "fit_points",
                                          "fit_rmse_s"};

ModelParams parse_model(const Reader& r, const std::string& name, const json& m, const std::string& path) {
  if (!m.is_object()) r.fail(path, "must be an object");
  r.only_known_keys(m, path, kModelKeys);
  ModelParams p;
  p.name = name;
  p.alpha_compute_s = r.number(m, path, "alpha_compute_s", 0);
  p.beta_compute_s = r.number(m, path, "beta_compute_s", 0);
  if (p.alpha_compute_s + p.beta_compute_s <= 0) {
    r.fail(path, "alpha_compute_s + beta_compute_s must be > 0 (a step cannot take no time)");
  }
  p.gradient_bytes = r.number(m, path, "gradient_bytes", 1);
  p.weight_state_bytes = r.number(m, path, "weight_state_bytes", 0);
  p.memory_per_sample_bytes = r.number(m, path, "memory_per_sample_bytes", 0);
  p.min_local_batch = r.integer(m, path, "min_local_batch", 1);
  p.max_local_batch = r.integer(m, path, "max_local_batch", p.min_local_batch);
  p.default_local_batch = r.integer(m, path, "default_local_batch", p.min_local_batch);
  if (p.default_local_batch > p.max_local_batch) {
    r.fail(Reader::join(path, "default_local_batch"),
           "must be <= max_local_batch (" + std::to_string(p.max_local_batch) + ")");
  }
  p.initial_batch = r.integer(m, path, "initial_batch", 1);
  p.max_global_batch = r.integer(m, path, "max_global_batch", p.initial_batch);
  p.overlap_gamma = r.number(m, path, "overlap_gamma", 1);
  if (p.overlap_gamma > 10)
    r.fail(Reader::join(path, "overlap_gamma"), "must be in [1, 10] (Pollux's bounds)");
  return p;
}

}  // namespace

ModelCatalog ModelCatalog::parse(const std::string& json_text, const std::string& source_name) {
  const Reader r(source_name);
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    r.fail("(document)", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) r.fail("(document)", "must be a JSON object");
  r.only_known_keys(doc, "", kTopLevelKeys);
  const json& models = r.field(doc, "", "models");
  if (!models.is_object() || models.empty()) r.fail("models", "must be a non-empty object");

  ModelCatalog catalog;
  for (const auto& [name, m] : models.items()) {
    if (name.empty()) r.fail("models", "model name must not be empty");
    catalog.models_.emplace(name, parse_model(r, name, m, "models." + name));
  }
  return catalog;
}

const ModelCatalog& ModelCatalog::builtin() {
  static const ModelCatalog catalog = [] {
    const auto text = embedded_file("models.json");
    if (!text) throw std::logic_error("models.json is not embedded in the binary");
    return parse(std::string(*text), "models.json (built in)");
  }();
  return catalog;
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
