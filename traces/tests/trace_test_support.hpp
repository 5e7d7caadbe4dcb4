#pragma once
// Paths of the hand-written trace files in traces/tests/data. The folder is
// compiled into trace_test_support.cpp alone, so that no other test source's
// compile line names the checkout's absolute path (ccache reuses objects
// across clones; docs/CONTRIBUTING.md, "Build cache").
#include <string>

namespace vnsim::testing {

// traces/tests/data, absolute.
std::string trace_data_dir();
// traces/tests/data/<name>.
std::string trace_data(const std::string& name);

}  // namespace vnsim::testing
