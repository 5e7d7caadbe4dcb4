#include "vnsim/core/model_calibration.hpp"

#include <stdexcept>

#include "strict_json.hpp"
#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {
namespace {

using strict_json::field_path;
using strict_json::Json;
using strict_json::Reader;

const std::vector<std::string_view> kTopLevelKeys = {"source", "configurations"};
const std::vector<std::string_view> kConfigKeys = {
    "source", "slowdown", "slowdown_by_gpu", "overlap_fraction", "start_charge_s", "start_charge_default_s"};

const Json& configurations(const Reader& r, const Json& doc) {
  r.expect_object(doc, "");
  r.allow_only(doc, "", kTopLevelKeys);
  const Json& configs = r.require(doc, "", "configurations");
  r.expect_object(configs, "configurations");
  return configs;
}

void require_model(const Reader& r, const ModelCatalog& models, const std::string& model,
                   const std::string& path) {
  if (!models.find(model)) r.fail(path, "unknown model '" + model + "'");
}

// An object of model name -> number, each checked by `check`.
template <typename Check>
std::map<std::string, double> per_model(const Reader& r, const Json& object, const std::string& path,
                                        const ModelCatalog& models, Check check) {
  r.expect_object(object, path);
  std::map<std::string, double> out;
  for (const auto& [model, value] : object.items()) {
    const std::string sub = field_path(path, model);
    require_model(r, models, model, sub);
    out.emplace(model, check(value, sub));
  }
  return out;
}

}  // namespace

double ModelCalibration::slowdown_for(const std::string& model, const std::string& gpu_type) const {
  if (const auto m = slowdown_by_gpu.find(model); m != slowdown_by_gpu.end()) {
    if (const auto t = m->second.find(gpu_type); t != m->second.end()) return t->second;
  }
  const auto it = slowdown.find(model);
  return it == slowdown.end() ? 1.0 : it->second;
}

std::vector<std::string> ModelCalibration::configuration_names(const std::string& json_text,
                                                               const std::string& source) {
  const Reader r(source, strict_json::Wording::terse);
  std::vector<std::string> names;
  const Json doc = strict_json::parse_strict(json_text, source);  // outlives the loop
  for (const auto& [name, config] : configurations(r, doc).items()) names.push_back(name);
  return names;
}

ModelCalibration ModelCalibration::parse(const std::string& json_text, const std::string& source,
                                         const std::string& name, const ModelCatalog& models,
                                         const GpuCatalog& gpus) {
  const Reader r(source, strict_json::Wording::terse);
  const Json doc = strict_json::parse_strict(json_text, source);
  const Json& configs = configurations(r, doc);
  if (!configs.contains(name)) {
    std::string names;
    for (const auto& [n, c] : configs.items()) names += (names.empty() ? "" : ", ") + n;
    throw InputError("--model-calibration: unknown configuration '" + name + "' in " + source +
                     " (known: " + names + ")");
  }
  const std::string path = field_path("configurations", name);
  const Json& config = configs.at(name);
  r.expect_object(config, path);
  r.allow_only(config, path, kConfigKeys);
  const auto positive = [&r](const Json& v, const std::string& p) { return r.finite_positive(v, p); };
  ModelCalibration c;
  if (const Json* s = Reader::find(config, "slowdown"))
    c.slowdown = per_model(r, *s, field_path(path, "slowdown"), models, positive);
  if (const Json* by_gpu = Reader::find(config, "slowdown_by_gpu")) {
    const std::string sub = field_path(path, "slowdown_by_gpu");
    r.expect_object(*by_gpu, sub);
    for (const auto& [model, types] : by_gpu->items()) {
      const std::string model_path = field_path(sub, model);
      require_model(r, models, model, model_path);
      r.expect_object(types, model_path);
      for (const auto& [type, value] : types.items()) {
        const std::string type_path = field_path(model_path, type);
        if (!gpus.find(type)) r.fail(type_path, "unknown GPU type '" + type + "'");
        c.slowdown_by_gpu[model][type] = r.finite_positive(value, type_path);
      }
    }
  }
  if (const Json* f = Reader::find(config, "overlap_fraction")) {
    c.overlap_fraction = per_model(r, *f, field_path(path, "overlap_fraction"), models,
                                   [&r](const Json& v, const std::string& p) {
                                     if (!v.is_number()) r.fail(p, "must be a number");
                                     const double x = v.get<double>();
                                     if (!(x >= 0 && x <= 1)) r.fail(p, "must be in [0, 1]");
                                     return x;
                                   });
  }
  const auto non_negative = [&r](const Json& v, const std::string& p) { return r.non_negative_number(v, p); };
  if (const Json* charges = Reader::find(config, "start_charge_s"))
    c.start_charge_s = per_model(r, *charges, field_path(path, "start_charge_s"), models, non_negative);
  if (const Json* d = Reader::find(config, "start_charge_default_s"))
    c.start_charge_default_s = non_negative(*d, field_path(path, "start_charge_default_s"));
  return c;
}

ModelCatalog ModelCalibration::apply(const ModelCatalog& plain) const {
  ModelCatalog out = plain.with_slowdowns(slowdown).with_overlap_fractions(overlap_fraction);
  if (!start_charge_s.empty() || start_charge_default_s)
    out = out.with_start_charges(start_charge_s, start_charge_default_s.value_or(0));
  return out;
}

GpuCatalog ModelCalibration::apply(const GpuCatalog& plain) const {
  std::map<std::string, std::map<std::string, double>> factor_by_type;  // type -> model -> speed factor
  for (const auto& [model, types] : slowdown_by_gpu) {
    const auto own = slowdown.find(model);
    const double model_factor = own == slowdown.end() ? 1.0 : own->second;
    for (const auto& [type, s] : types) factor_by_type[type][model] = model_factor / s;
  }
  return plain.with_speed_factors(factor_by_type);
}

namespace {
std::optional<std::string>& selected_name() {
  static std::optional<std::string> name;
  return name;
}
bool& builtin_made() {
  static bool made = false;
  return made;
}
constexpr const char* kFile = "model_calibration.json";
std::string embedded_text() {
  const auto text = embedded_file(kFile);
  if (!text) throw std::logic_error(std::string(kFile) + " is not embedded in the binary");
  return std::string(*text);
}
}  // namespace

void ModelCatalog::select_builtin_calibration(const std::string& name) {
  if (builtin_made())
    throw std::logic_error("select_builtin_calibration: the built-in catalogs are already in use");
  const auto names =
      ModelCalibration::configuration_names(embedded_text(), std::string(kFile) + " (built in)");
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw InputError("--model-calibration: unknown configuration '" + name + "' (known: " + known + ")");
  }
  selected_name() = name;
}

const std::optional<ModelCalibration>& builtin_model_calibration(const ModelCatalog& plain_models,
                                                                 const GpuCatalog& plain_gpus) {
  builtin_made() = true;
  static const std::optional<ModelCalibration> calibration = [&]() -> std::optional<ModelCalibration> {
    if (!selected_name()) return std::nullopt;
    return ModelCalibration::parse(embedded_text(), std::string(kFile) + " (built in)", *selected_name(),
                                   plain_models, plain_gpus);
  }();
  return calibration;
}

}  // namespace vnsim
