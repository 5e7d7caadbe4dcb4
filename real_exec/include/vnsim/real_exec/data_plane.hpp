#pragma once
// Backends behind one interface. A DataPlane is one rank's share of one job:
// its parameters and gradient buffer (host or device memory) and the
// collective over the job's ranks (MPI or NCCL). The executor logic
// (step_runner.hpp) drives every backend the same way.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vnsim/real_exec/group_comm.hpp"

namespace vnsim::real_exec {

struct StepTiming {
  double compute_s = 0;    // all micro-batches of this rank, accumulation included
  double allreduce_s = 0;  // the one gradient collective of the step
};

class DataPlane {
 public:
  virtual ~DataPlane() = default;
  virtual std::size_t parameter_count() const = 0;
  virtual void zero_grad() = 0;
  // One micro-batch: `flops` of GEMM work sized to the model, then the
  // samples' gradients added into the gradient buffer.
  virtual void micro_batch(long long first_sample, long long samples, double flops) = 0;
  virtual void allreduce_grad() = 0;
  virtual void apply_update(long long total_samples, double learning_rate) = 0;
  virtual void broadcast_params(int root) = 0;
  virtual std::vector<double> read_params() = 0;
  virtual void write_params(const std::vector<double>& params) = 0;
  virtual std::vector<double> read_grad() = 0;
  // Timing of the work issued since the last call (blocks until it is done).
  virtual StepTiming take_timing() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // `comm` stays valid for the plane's lifetime; the plane may use it for
  // its collectives (cpu) or only to bootstrap its own communicator (cuda).
  virtual std::unique_ptr<DataPlane> open(GroupComm& comm, std::size_t parameter_count) = 0;
  // Once per worker process, before its first job: what a long-lived
  // worker pays at boot and never again (a GPU's context, its libraries'
  // kernels), so that no job's time carries it.
  virtual void warm_up() {}
};

// Real GEMMs on the CPU and the GroupComm's all-reduce (MPI in vnexec).
std::unique_ptr<Backend> make_cpu_backend();

}  // namespace vnsim::real_exec
