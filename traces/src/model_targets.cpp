// Reads the embedded core/data/model_targets.json (written by
// scripts/derive_model_targets.py) once.
#include <map>
#include <nlohmann/json.hpp>

#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/work_assignment.hpp"

namespace vnsim {
namespace {

std::map<std::string, double> load_targets() {
  constexpr const char* kFile = "model_targets.json";
  const auto text = embedded_file(kFile);
  if (!text) throw InputError(std::string(kFile) + ": not embedded in this build");
  std::map<std::string, double> targets;
  try {
    const auto doc = nlohmann::json::parse(text->begin(), text->end());
    for (const auto& [model, entry] : doc.at("models").items()) {
      const double samples = entry.at("target_samples").get<double>();
      if (!(samples > 0))
        throw InputError(std::string(kFile) + ": models." + model + ".target_samples must be > 0");
      targets[model] = samples;
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string(kFile) + ": " + e.what());
  }
  return targets;
}

}  // namespace

std::optional<double> model_target_samples(const std::string& model) {
  static const std::map<std::string, double> targets = load_targets();
  const auto it = targets.find(model);
  if (it == targets.end()) return std::nullopt;
  return it->second;
}

}  // namespace vnsim
