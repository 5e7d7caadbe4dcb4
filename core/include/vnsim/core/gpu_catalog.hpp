#pragma once
// GPU type catalog: memory and speed of each GPU type, relative to the
// reference GPU on which the model catalog's compute times were measured
// (the Pollux testbed's T4). Speeds may differ per model; see docs/MODELS.md
// for where each factor comes from.
#include <map>
#include <string>
#include <vector>

namespace vnsim {

struct GpuType {
  std::string name;
  double memory_bytes = 0;
  double peak_flops = 0;                         // dense fp16/bf16 tensor flop/s, for SimGrid host speed
  double relative_speed = 1.0;                   // default speed vs the reference GPU
  std::map<std::string, double> speed_by_model;  // per-model overrides
  // Energy and cost accounting (docs/ELASTICITY.md, "Cost and energy"); 0 when
  // the catalog does not give them.
  double busy_watts = 0;             // board power while a job holds the GPU
  double idle_watts = 0;             // board power while it is free
  double usd_per_gpu_hour = 0;       // on-demand price
  double spot_usd_per_gpu_hour = 0;  // spot price
  double speed_for(const std::string& model) const;
};

class GpuCatalog {
 public:
  // The catalog embedded in the binary (core/data/gpu_types.json), with the
  // per-GPU-type factors of the selected model calibration (model_calibration.hpp).
  static const GpuCatalog& builtin();
  static const GpuCatalog& builtin_uncalibrated();  // core/data/gpu_types.json as written
  // This catalog with speed_for(model) of each listed type multiplied by the
  // factor (type -> model -> factor > 0). Throws InputError for an unknown type.
  GpuCatalog with_speed_factors(const std::map<std::string, std::map<std::string, double>>& factor) const;
  static GpuCatalog parse(const std::string& json_text, const std::string& source_name);

  const GpuType* find(const std::string& name) const;  // nullptr when unknown
  const GpuType& at(const std::string& name) const;    // throws InputError when unknown
  std::vector<std::string> names() const;
  const std::string& reference() const { return reference_; }

 private:
  std::map<std::string, GpuType> types_;
  std::string reference_;
};

}  // namespace vnsim
