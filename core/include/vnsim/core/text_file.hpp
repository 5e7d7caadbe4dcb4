#pragma once
// A whole file as text, for inputs that are parsed in one piece (JSON
// profiles, run configs, traces compared byte for byte).
#include <string>

namespace vnsim {

// Throws InputError "PATH: cannot read" when the file cannot be opened.
std::string read_text_file(const std::string& path);

}  // namespace vnsim
