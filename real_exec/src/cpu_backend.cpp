// The cpu backend: GEMM compute and the GroupComm all-reduce (MPI_Allreduce
// in vnexec) of a real gradient buffer in host memory.
#include <algorithm>
#include <chrono>

#include "vnsim/real_exec/data_plane.hpp"
#include "vnsim/real_exec/gemm.hpp"
#include "vnsim/real_exec/gradient_model.hpp"

namespace vnsim::real_exec {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class CpuDataPlane final : public DataPlane {
 public:
  CpuDataPlane(GroupComm& comm, std::size_t count)
      : comm_(comm), params_(initial_parameters(count)), grad_(count, 0.0) {}

  std::size_t parameter_count() const override { return params_.size(); }
  void zero_grad() override { std::fill(grad_.begin(), grad_.end(), 0.0); }
  void micro_batch(long long first_sample, long long samples, double flops) override {
    const auto t0 = std::chrono::steady_clock::now();
    sink_ += gemm_.run(flops);
    accumulate_samples(grad_, first_sample, samples);
    timing_.compute_s += seconds_since(t0);
  }
  void allreduce_grad() override {
    const auto t0 = std::chrono::steady_clock::now();
    comm_.allreduce_sum(grad_.data(), grad_.size());
    timing_.allreduce_s += seconds_since(t0);
  }
  void apply_update(long long total_samples, double learning_rate) override {
    apply_sgd(params_, grad_, total_samples, learning_rate);
  }
  void broadcast_params(int root) override {
    comm_.broadcast(params_.data(), params_.size() * sizeof(double), root);
  }
  std::vector<double> read_params() override { return params_; }
  void write_params(const std::vector<double>& params) override {
    std::copy(params.begin(), params.end(), params_.begin());
  }
  std::vector<double> read_grad() override { return grad_; }
  StepTiming take_timing() override {
    StepTiming out = timing_;
    timing_ = {};
    return out;
  }

 private:
  GroupComm& comm_;
  std::vector<double> params_, grad_;
  GemmWorkload gemm_;
  StepTiming timing_;
  double sink_ = 0;
};

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::unique_ptr<DataPlane> open(GroupComm& comm, std::size_t parameter_count) override {
    return std::make_unique<CpuDataPlane>(comm, parameter_count);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace vnsim::real_exec
