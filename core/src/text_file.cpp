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

}  // namespace vnsim
