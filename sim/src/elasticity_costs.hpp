#pragma once
// What stopping, resizing and restoring a job costs, from the cluster's
// elasticity spec (docs/ELASTICITY.md, "Checkpoints" and "Resize"): the
// state a checkpoint holds and a joining GPU receives, and the time to save
// it and to restart and load it. No SimGrid.
#include <optional>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim::sim {

class ElasticityCosts {
 public:
  ElasticityCosts(const ElasticitySpec& spec, const ModelCatalog& models) : spec_(spec), models_(models) {}

  // Weights and optimizer state: what a checkpoint holds and what a joining
  // GPU receives.
  double state_bytes(const JobSpec& job) const;
  // Writing the state through the storage bandwidth.
  double save_s(const JobSpec& job) const { return state_bytes(job) / spec_.storage_bandwidth_Bps; }
  // Restarting the processes and loading the last checkpoint.
  double restore_s(const JobSpec& job) const;
  // Moving by checkpoint-restart: save, restart, restore.
  double move_s(const JobSpec& job) const;
  // What starting the job (first start or resume) costs before it progresses:
  // its model's start charge when a calibration sets one, else a restore
  // when it was stopped with a checkpoint (`restore_pending`), else nothing.
  double start_s(const JobSpec& job, bool restore_pending) const;
  // Rebuilding the collective communicator in place.
  double communicator_setup_s() const { return spec_.communicator_setup_s; }

 private:
  std::optional<double> start_charge_s(const JobSpec& job) const;

  const ElasticitySpec& spec_;
  const ModelCatalog& models_;
};

}  // namespace vnsim::sim
