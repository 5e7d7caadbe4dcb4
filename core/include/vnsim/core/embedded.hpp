#pragma once
// Data files compiled into the binary (core/data/*.json): presets, catalogs.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vnsim {
std::optional<std::string_view> embedded_file(const std::string& name);
std::vector<std::string> embedded_file_names();
}  // namespace vnsim
