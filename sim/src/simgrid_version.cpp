// version.h uses SG_BEGIN_DECL/XBT_PUBLIC without including their definitions.
#include <xbt/base.h>
// keep after xbt/base.h
#include <simgrid/version.h>

#include "vnsim/sim/version.hpp"

namespace vnsim {

std::string simgrid_version() {
  return "SimGrid " + std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR) +
         "." + std::to_string(SIMGRID_VERSION_PATCH);
}

}  // namespace vnsim
