#pragma once
// The small clusters the unit tests share, kept as cluster-spec JSON files in
// tests/clusters/ (the format of docs/CLUSTER_SPEC.md; what each one is:
// tests/clusters/README.md). test_cluster("sim-1x2x4") loads
// tests/clusters/sim-1x2x4.json; the folder comes from the compile definition
// VNSIM_TEST_CLUSTERS that cmake/VnsimTesting.cmake gives every test target.
#include <string>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim::testing {

inline ClusterSpec test_cluster(const std::string& name) {
  return load_cluster_spec_file(std::string(VNSIM_TEST_CLUSTERS) + "/" + name + ".json");
}

}  // namespace vnsim::testing
