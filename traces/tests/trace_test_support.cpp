#include "trace_test_support.hpp"

namespace vnsim::testing {

std::string trace_data_dir() {
  return VNSIM_TRACES_TEST_DATA;
}

std::string trace_data(const std::string& name) {
  return trace_data_dir() + "/" + name;
}

}  // namespace vnsim::testing
