#pragma once
#include <string>

namespace vnsim {
// "SimGrid 3.32.0": printed in every output so results name the engine
// version that produced them.
std::string simgrid_version();
}  // namespace vnsim
