#pragma once
// The small clusters the unit tests share, kept as cluster-spec JSON files in
// tests/clusters/ (the format of docs/CLUSTER_SPEC.md; what each one is:
// tests/clusters/README.md). test_cluster("sim-1x2x4") loads
// tests/clusters/sim-1x2x4.json. The folder is compiled into test_clusters.cpp
// alone (cmake/VnsimTesting.cmake), so that no other test source's compile
// line names the checkout's absolute path and ccache reuses its objects
// across clones.
#include <string>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim::testing {

ClusterSpec test_cluster(const std::string& name);

}  // namespace vnsim::testing
