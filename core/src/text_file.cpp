#include "vnsim/core/text_file.hpp"

#include <fstream>
#include <sstream>

#include "vnsim/core/error.hpp"

namespace vnsim {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim_blanks(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace vnsim
