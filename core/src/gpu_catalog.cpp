#include "vnsim/core/gpu_catalog.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/units.hpp"

namespace vnsim {
namespace {

using nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw InputError(source_ + ": " + path + ": " + reason);
  }

  const json& field(const json& obj, const std::string& path, const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path.empty() ? key : path + "." + key, "missing required field");
    return *it;
  }

  double positive(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "must be a number");
    const double x = v.get<double>();
    if (!(x > 0) || !std::isfinite(x)) fail(path, "must be a finite number > 0, got " + v.dump());
    return x;
  }

  void only_known_keys(const json& obj, const std::string& path, const std::set<std::string>& known) const {
    for (const auto& [key, value] : obj.items()) {
      if (!known.count(key)) fail(path.empty() ? key : path + "." + key, "unknown field");
    }
  }

 private:
  std::string source_;
};

const std::set<std::string> kTopLevelKeys = {"derived_by", "source", "reference", "types"};
// memory_bandwidth_GBps is informational (docs/MODELS.md); the simulator does not use it.
const std::set<std::string> kTypeKeys = {"memory_gib", "peak_tflops", "relative_speed", "speed_by_model",
                                         "memory_bandwidth_GBps"};

GpuType parse_type(const Reader& r, const std::string& name, const json& t, const std::string& path) {
  if (!t.is_object()) r.fail(path, "must be an object");
  r.only_known_keys(t, path, kTypeKeys);
  GpuType g;
  g.name = name;
  g.memory_bytes = units::gib_to_bytes(r.positive(r.field(t, path, "memory_gib"), path + ".memory_gib"));
  g.peak_flops = r.positive(r.field(t, path, "peak_tflops"), path + ".peak_tflops") * 1e12;
  g.relative_speed = r.positive(r.field(t, path, "relative_speed"), path + ".relative_speed");
  if (t.contains("speed_by_model")) {
    const json& by_model = t.at("speed_by_model");
    const std::string sub = path + ".speed_by_model";
    if (!by_model.is_object()) r.fail(sub, "must be an object of model name -> speed");
    for (const auto& [model, speed] : by_model.items()) {
      g.speed_by_model.emplace(model, r.positive(speed, sub + "." + model));
    }
  }
  if (t.contains("memory_bandwidth_GBps")) {
    r.positive(t.at("memory_bandwidth_GBps"), path + ".memory_bandwidth_GBps");
  }
  return g;
}

}  // namespace

double GpuType::speed_for(const std::string& model) const {
  auto it = speed_by_model.find(model);
  return it == speed_by_model.end() ? relative_speed : it->second;
}

GpuCatalog GpuCatalog::parse(const std::string& json_text, const std::string& source_name) {
  const Reader r(source_name);
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    r.fail("(document)", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) r.fail("(document)", "must be a JSON object");
  r.only_known_keys(doc, "", kTopLevelKeys);

  const json& types = r.field(doc, "", "types");
  if (!types.is_object() || types.empty()) r.fail("types", "must be a non-empty object");
  GpuCatalog catalog;
  for (const auto& [name, t] : types.items()) {
    if (name.empty()) r.fail("types", "GPU type name must not be empty");
    catalog.types_.emplace(name, parse_type(r, name, t, "types." + name));
  }

  const json& reference = r.field(doc, "", "reference");
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

const GpuCatalog& GpuCatalog::builtin() {
  static const GpuCatalog catalog = [] {
    const auto text = embedded_file("gpu_types.json");
    if (!text) throw std::logic_error("gpu_types.json is not embedded in the binary");
    return parse(std::string(*text), "gpu_types.json (built in)");
  }();
  return catalog;
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
