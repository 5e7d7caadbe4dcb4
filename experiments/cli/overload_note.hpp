#pragma once
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim::cli {

// The replay's up-front note for a trace that offers the cluster more than
// ten times what it can do while the jobs arrive (offered load,
// vnsim/policies/offered_load.hpp), or "" for any other trace.
// `arrival_scale`: the --arrival-scale the jobs were loaded with, so that
// the one the note suggests replaces it.
std::string overload_note(const std::vector<JobSpec>& jobs, const Cluster& cluster,
                          const ModelCatalog& models, double arrival_scale);

}  // namespace vnsim::cli
