#include "vnsim/core/gpu_catalog.hpp"

#include <cmath>
#include <stdexcept>

#include "strict_json.hpp"
#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/model_calibration.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/units.hpp"

namespace vnsim {
namespace {

using strict_json::field_path;
using strict_json::Json;
using strict_json::Reader;

const std::vector<std::string_view> kTopLevelKeys = {"derived_by", "source", "reference", "types"};
// memory_bandwidth_GBps is informational (docs/MODELS.md); the simulator does not use it.
const std::vector<std::string_view> kTypeKeys = {
    "memory_gib", "peak_tflops", "relative_speed",   "speed_by_model",       "memory_bandwidth_GBps",
    "busy_watts", "idle_watts",  "usd_per_gpu_hour", "spot_usd_per_gpu_hour"};

GpuType parse_type(const Reader& r, const std::string& name, const Json& t, const std::string& path) {
  if (!t.is_object()) r.fail(path, "must be an object");
  r.allow_only(t, path, kTypeKeys);
  const auto positive_field = [&](const char* key) {
    return r.finite_positive(r.require(t, path, key), field_path(path, key));
  };
  GpuType g;
  g.name = name;
  g.memory_bytes = units::gib_to_bytes(positive_field("memory_gib"));
  g.peak_flops = positive_field("peak_tflops") * 1e12;
  g.relative_speed = positive_field("relative_speed");
  if (const Json* by_model = Reader::find(t, "speed_by_model")) {
    const std::string sub = field_path(path, "speed_by_model");
    if (!by_model->is_object()) r.fail(sub, "must be an object of model name -> speed");
    for (const auto& [model, speed] : by_model->items())
      g.speed_by_model.emplace(model, r.finite_positive(speed, field_path(sub, model)));
  }
  const auto optional_positive = [&](const char* key, double& out) {
    if (const Json* v = Reader::find(t, key)) {
      out = r.finite_positive(*v, field_path(path, key));
    }
  };
  optional_positive("busy_watts", g.busy_watts);
  optional_positive("idle_watts", g.idle_watts);
  optional_positive("usd_per_gpu_hour", g.usd_per_gpu_hour);
  optional_positive("spot_usd_per_gpu_hour", g.spot_usd_per_gpu_hour);
  if (const Json* bandwidth = Reader::find(t, "memory_bandwidth_GBps"))
    r.finite_positive(*bandwidth, field_path(path, "memory_bandwidth_GBps"));
  return g;
}

}  // namespace

double GpuType::speed_for(const std::string& model) const {
  auto it = speed_by_model.find(model);
  return it == speed_by_model.end() ? relative_speed : it->second;
}

GpuCatalog GpuCatalog::parse(const std::string& json_text, const std::string& source_name) {
  const Reader r(source_name, strict_json::Wording::terse);
  const Json doc = r.parse_object_document(json_text);
  r.allow_only(doc, "", kTopLevelKeys);

  const Json& types = r.require(doc, "", "types");
  if (!types.is_object() || types.empty()) r.fail("types", "must be a non-empty object");
  GpuCatalog catalog;
  for (const auto& [name, t] : types.items()) {
    if (name.empty()) r.fail("types", "GPU type name must not be empty");
    catalog.types_.emplace(name, parse_type(r, name, t, "types." + name));
  }

  const Json& reference = r.require(doc, "", "reference");
  if (!reference.is_string()) r.fail("reference", "must be a GPU type name");
  catalog.reference_ = reference.get<std::string>();
  const GpuType* ref = catalog.find(catalog.reference_);
  if (!ref) r.fail("reference", "'" + catalog.reference_ + "' is not one of the types");
  // All speeds are ratios to the reference, so it must be exactly 1 for every model.
  if (ref->relative_speed != 1.0 || !ref->speed_by_model.empty()) {
    r.fail("types." + catalog.reference_,
           "the reference type must have relative_speed 1 and no speed_by_model");
  }
  return catalog;
}

const GpuCatalog& GpuCatalog::builtin_uncalibrated() {
  static const GpuCatalog catalog = [] {
    const auto text = embedded_file("gpu_types.json");
    if (!text) throw std::logic_error("gpu_types.json is not embedded in the binary");
    return parse(std::string(*text), "gpu_types.json (built in)");
  }();
  return catalog;
}

const GpuCatalog& GpuCatalog::builtin() {
  static const GpuCatalog catalog = [] {
    const GpuCatalog& plain = builtin_uncalibrated();
    const auto& calibration = builtin_model_calibration(ModelCatalog::builtin_uncalibrated(), plain);
    return calibration ? calibration->apply(plain) : plain;
  }();
  return catalog;
}

GpuCatalog GpuCatalog::with_speed_factors(
    const std::map<std::string, std::map<std::string, double>>& factor) const {
  GpuCatalog out = *this;
  for (const auto& [type_name, by_model] : factor) {
    const auto it = out.types_.find(type_name);
    if (it == out.types_.end()) throw InputError("GPU speed factor: unknown GPU type '" + type_name + "'");
    GpuType& type = it->second;
    for (const auto& [model, f] : by_model) {
      if (!(f > 0) || !std::isfinite(f))
        throw InputError("GPU speed factor of " + type_name + "/" + model + " must be > 0");
      type.speed_by_model[model] = type.speed_for(model) * f;
    }
  }
  return out;
}

const GpuType* GpuCatalog::find(const std::string& name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : &it->second;
}

const GpuType& GpuCatalog::at(const std::string& name) const {
  if (const auto* t = find(name)) return *t;
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown GPU type '" + name + "' (known: " + known + ")");
}

std::vector<std::string> GpuCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& [name, type] : types_) out.push_back(name);
  return out;
}

}  // namespace vnsim
