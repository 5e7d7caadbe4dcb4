#pragma once
// Paths of the hand-written trace files in traces/tests/data.
#include <string>

namespace vnsim::testing {

inline std::string trace_data(const std::string& name) {
  return std::string(VNSIM_TRACES_TEST_DATA) + "/" + name;
}

}  // namespace vnsim::testing
