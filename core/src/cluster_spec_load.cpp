// Where cluster specs come from: embedded presets or JSON files.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

const std::string kPresetPrefix = "cluster-";
const std::string kPresetSuffix = ".json";

std::string preset_file(const std::string& preset) {
  return kPresetPrefix + preset + kPresetSuffix;
}

std::string preset_list() {
  std::string list;
  for (const std::string& p : cluster_preset_names()) list += (list.empty() ? "" : ", ") + p;
  return list;
}

}  // namespace

ClusterSpec load_cluster_spec_file(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw InputError(path + ": is a directory, expected a cluster spec file (docs/CLUSTER_SPEC.md)");
  if (!std::filesystem::is_regular_file(path)) throw InputError(path + ": no such file");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw InputError(path + ": cannot read file");
  return parse_cluster_spec(text.str(), path);
}

// Derived from the embedded files, so adding core/data/cluster-<x>.json is
// all it takes to add a preset.
std::vector<std::string> cluster_preset_names() {
  std::vector<std::string> names;
  for (const std::string& f : embedded_file_names()) {
    if (f.size() <= kPresetPrefix.size() + kPresetSuffix.size()) continue;
    if (f.compare(0, kPresetPrefix.size(), kPresetPrefix) != 0) continue;
    if (f.compare(f.size() - kPresetSuffix.size(), kPresetSuffix.size(), kPresetSuffix) != 0) continue;
    names.push_back(f.substr(kPresetPrefix.size(), f.size() - kPresetPrefix.size() - kPresetSuffix.size()));
  }
  return names;  // embedded_file_names() is sorted, so this is too
}

ClusterSpec load_cluster_spec(const std::string& preset_or_path) {
  if (auto text = embedded_file(preset_file(preset_or_path)))
    return parse_cluster_spec(std::string(*text), preset_file(preset_or_path) + " (embedded preset)");
  if (!std::filesystem::exists(preset_or_path))
    throw InputError("cluster '" + preset_or_path + "': not a preset (" + preset_list() +
                     ") and no such file");
  return load_cluster_spec_file(preset_or_path);
}

}  // namespace vnsim
