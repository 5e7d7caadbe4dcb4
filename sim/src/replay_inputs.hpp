#pragma once
// What a replay is given: the cluster and its catalogs, the trace, the
// policy and the options. Read by the controller and its components.
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

struct ReplayInputs {
  const Cluster& cluster;
  const Topology& topology;
  const GpuCatalog& gpu_catalog;
  const ModelCatalog& models;
  const std::vector<JobSpec>& jobs;
  Policy& policy;
  const ReplayOptions& options;
};

}  // namespace vnsim::sim
