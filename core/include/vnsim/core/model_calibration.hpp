#pragma once
// Named per-model calibrations (core/data/model_calibration.json): slowdown
// factors per model and per (model, GPU type), and overlap fractions. A
// slowdown s makes each step of the model take s times as long (progress-rate
// factor 1/s). docs/MODELS.md, "Calibration factors".
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vnsim {

class GpuCatalog;
class ModelCatalog;

struct ModelCalibration {
  std::map<std::string, double> slowdown;                                // model -> s
  std::map<std::string, std::map<std::string, double>> slowdown_by_gpu;  // model -> GPU type -> s
  std::map<std::string, double> overlap_fraction;                        // model -> f
  // Start charges (s, ModelParams::start_charge_s): on for every model when
  // either is given; a model not named gets the default (0 when absent).
  std::map<std::string, double> start_charge_s;
  std::optional<double> start_charge_default_s;

  // The factor of `model` on `gpu_type`: the per-type factor, else the
  // model's factor, else 1.
  double slowdown_for(const std::string& model, const std::string& gpu_type) const;

  // Parses configuration `name` of a model_calibration.json text. Errors are
  // InputError "<source>: <json path>: <reason>"; models and GPU types must
  // be in the given catalogs and every factor finite and > 0.
  static ModelCalibration parse(const std::string& json_text, const std::string& source,
                                const std::string& name, const ModelCatalog& models, const GpuCatalog& gpus);
  static std::vector<std::string> configuration_names(const std::string& json_text,
                                                      const std::string& source);

  // The model catalog with each model's own factor applied (compute and
  // gradient bytes, ModelCatalog::with_slowdowns), its overlap fractions and
  // the start charges.
  ModelCatalog apply(const ModelCatalog& plain) const;
  // The GPU catalog with each per-type factor applied on top of the model's
  // own (which apply() put into the model's compute): the type's speed for the
  // model is multiplied by slowdown(model) / slowdown_by_gpu(model, type), so
  // the model's compute on that type takes slowdown_by_gpu times as long as
  // uncalibrated. Gradient traffic keeps the model's own factor.
  GpuCatalog apply(const GpuCatalog& plain) const;
};

// The configuration selected for the built-in catalogs (ModelCatalog::
// select_builtin_calibration), read from the embedded file; nullopt when none.
const std::optional<ModelCalibration>& builtin_model_calibration(const ModelCatalog& plain_models,
                                                                 const GpuCatalog& plain_gpus);

}  // namespace vnsim
