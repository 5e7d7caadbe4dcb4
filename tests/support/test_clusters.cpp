#include "test_clusters.hpp"

namespace vnsim::testing {

ClusterSpec test_cluster(const std::string& name) {
  return load_cluster_spec_file(std::string(VNSIM_TEST_CLUSTERS) + "/" + name + ".json");
}

}  // namespace vnsim::testing
