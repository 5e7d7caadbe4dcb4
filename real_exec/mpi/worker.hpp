#pragma once
// A worker rank of vnexec run: waits for launches from the controller and
// runs job segments with the executor logic (step_runner.hpp).
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/real_exec/data_plane.hpp"
#include "vnsim/real_exec/worker_fleet.hpp"
#include "vnsim/real_exec/workload.hpp"

namespace vnsim::real_exec::mpi {

struct WorkerConfig {
  Backend* backend = nullptr;
  const std::vector<JobSpec>* jobs = nullptr;
  const ModelCatalog* models = nullptr;  // the work emulated: the built-in catalog
  EmulationScale scale;
  std::string checkpoint_dir;
  long long checkpoint_every = 0;
};

void run_worker(const WorkerConfig& config);

// Where job `job` (index in the executed trace) keeps its checkpoint.
std::string checkpoint_path(const std::string& checkpoint_dir, JobIndex job);

// Checkpoint files: iterations done + parameters, written atomically.
void write_checkpoint(const std::string& path, long long iterations, const std::vector<double>& params);
long long read_checkpoint(const std::string& path, std::vector<double>& params);

}  // namespace vnsim::real_exec::mpi
