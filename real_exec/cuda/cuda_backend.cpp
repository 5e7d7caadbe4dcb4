#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/real_exec/background_queue.hpp"
#include "vnsim/real_exec/gradient_model.hpp"
#include "vnsim_cuda_backend.hpp"

namespace vnsim::real_exec {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

// One process per GPU: the launcher's node-local rank picks the device.
int local_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return 0;
}

constexpr int kGemmN = 2048;  // square fp32 GEMMs of 2 * 2048^3 = 17.2 GFLOP

class CudaDataPlane final : public DataPlane {
 public:
  CudaDataPlane(GroupComm& comm, std::size_t count, std::shared_ptr<BackgroundQueue> teardown)
      : count_(count), teardown_(std::move(teardown)) {
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices == 0) throw std::runtime_error("cuda backend: no GPU visible");
    device_ = local_rank() % devices;
    check(cudaSetDevice(device_), "cudaSetDevice");
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check(cublasCreate(&blas_), "cublasCreate");
    check(cublasSetStream(blas_, stream_), "cublasSetStream");
    const std::size_t bytes = count_ * sizeof(double);
    check(cudaMalloc(&params_, bytes), "cudaMalloc params");
    check(cudaMalloc(&grad_, bytes), "cudaMalloc grad");
    check(cudaMalloc(&basis_, bytes * kGradientBasisCount), "cudaMalloc basis");
    std::vector<double> host(count_ * kGradientBasisCount);
    for (int k = 0; k < kGradientBasisCount; ++k)
      for (std::size_t j = 0; j < count_; ++j) host[k * count_ + j] = gradient_basis_entry(k, j);
    check(cudaMemcpy(basis_, host.data(), bytes * kGradientBasisCount, cudaMemcpyHostToDevice), "copy basis");
    write_params(initial_parameters(count_));
    const std::size_t gemm_bytes = static_cast<std::size_t>(kGemmN) * kGemmN * sizeof(float);
    for (float** m : {&a_, &b_, &c_}) {
      check(cudaMalloc(m, gemm_bytes), "cudaMalloc gemm");
      check(cudaMemset(*m, 0, gemm_bytes), "cudaMemset gemm");
    }
    for (cudaEvent_t* e : {&compute_begin_, &compute_end_, &reduce_begin_, &reduce_end_})
      check(cudaEventCreate(e), "cudaEventCreate");
    // Bootstrap: the job's rank 0 makes the NCCL id, the job's MPI
    // communicator carries it to the others.
    ncclUniqueId id;
    if (comm.rank() == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm.broadcast(&id, sizeof id, 0);
    check(ncclCommInitRank(&nccl_, comm.size(), id, comm.rank()), "ncclCommInitRank");
  }
  // The job's work is finished here; its resources go on the backend's
  // teardown thread. ncclCommDestroy waits for NCCL's proxy thread to see
  // the stop, which took 0.05-0.5 s per job on an H100 (docs/VALIDATION.md)
  // and would otherwise delay the next job on this GPU.
  ~CudaDataPlane() override {
    cudaStreamSynchronize(stream_);
    teardown_->post(
        [device = device_, nccl = nccl_, blas = blas_, stream = stream_,
         events = std::vector<cudaEvent_t>{compute_begin_, compute_end_, reduce_begin_, reduce_end_},
         buffers = std::vector<void*>{params_, grad_, basis_, a_, b_, c_}] {
          cudaSetDevice(device);
          ncclCommDestroy(nccl);
          for (cudaEvent_t e : events) cudaEventDestroy(e);
          for (void* p : buffers) cudaFree(p);
          cublasDestroy(blas);
          cudaStreamDestroy(stream);
        });
  }
  CudaDataPlane(const CudaDataPlane&) = delete;
  CudaDataPlane& operator=(const CudaDataPlane&) = delete;

  std::size_t parameter_count() const override { return count_; }
  void zero_grad() override {
    check(cudaMemsetAsync(grad_, 0, count_ * sizeof(double), stream_), "zero_grad");
  }

  void micro_batch(long long first_sample, long long samples, double flops) override {
    if (!computing_) check(cudaEventRecord(compute_begin_, stream_), "event");
    computing_ = true;
    const float one = 1.0f, zero = 0.0f;
    const double row_flops = 2.0 * kGemmN * kGemmN;  // one output row of one GEMM
    auto rows = static_cast<long long>(std::llround(flops / row_flops));
    while (rows > 0) {
      const int m = static_cast<int>(std::min<long long>(rows, kGemmN));
      check(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, m, kGemmN, kGemmN, &one, a_, m, b_, kGemmN, &zero,
                        c_, m),
            "cublasSgemm");
      rows -= m;
    }
    const auto counts = basis_counts(first_sample, samples);
    for (int k = 0; k < kGradientBasisCount; ++k) {
      const auto c = static_cast<double>(counts[static_cast<std::size_t>(k)]);
      if (c == 0) continue;
      check(cublasDaxpy(blas_, static_cast<int>(count_), &c, basis_ + k * count_, 1, grad_, 1),
            "cublasDaxpy");
    }
    check(cudaEventRecord(compute_end_, stream_), "event");
  }
  void allreduce_grad() override {
    check(cudaEventRecord(reduce_begin_, stream_), "event");
    check(ncclAllReduce(grad_, grad_, count_, ncclDouble, ncclSum, nccl_, stream_), "ncclAllReduce");
    check(cudaEventRecord(reduce_end_, stream_), "event");
    reducing_ = true;
  }
  void apply_update(long long total_samples, double learning_rate) override {
    const double alpha = -learning_rate / static_cast<double>(total_samples);
    check(cublasDaxpy(blas_, static_cast<int>(count_), &alpha, grad_, 1, params_, 1), "cublasDaxpy update");
  }
  void broadcast_params(int root) override {
    check(ncclBroadcast(params_, params_, count_, ncclDouble, root, nccl_, stream_), "ncclBroadcast");
    check(cudaStreamSynchronize(stream_), "broadcast");
  }
  std::vector<double> read_params() override { return copy_out(params_); }
  void write_params(const std::vector<double>& params) override {
    check(cudaMemcpyAsync(params_, params.data(), count_ * sizeof(double), cudaMemcpyHostToDevice, stream_),
          "write_params");
    check(cudaStreamSynchronize(stream_), "write_params");
  }
  std::vector<double> read_grad() override { return copy_out(grad_); }
  StepTiming take_timing() override {
    check(cudaStreamSynchronize(stream_), "take_timing");
    StepTiming t;
    float ms = 0;
    if (computing_) {
      check(cudaEventElapsedTime(&ms, compute_begin_, compute_end_), "elapsed");
      t.compute_s = ms * 1e-3;
    }
    if (reducing_) {
      check(cudaEventElapsedTime(&ms, reduce_begin_, reduce_end_), "elapsed");
      t.allreduce_s = ms * 1e-3;
    }
    computing_ = reducing_ = false;
    return t;
  }

 private:
  std::vector<double> copy_out(const double* device) {
    std::vector<double> host(count_);
    check(cudaStreamSynchronize(stream_), "copy_out");
    check(cudaMemcpy(host.data(), device, count_ * sizeof(double), cudaMemcpyDeviceToHost), "copy_out");
    return host;
  }

  std::size_t count_;
  std::shared_ptr<BackgroundQueue> teardown_;  // shared: a plane may outlive its backend
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  ncclComm_t nccl_ = nullptr;
  double *params_ = nullptr, *grad_ = nullptr, *basis_ = nullptr;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  cudaEvent_t compute_begin_{}, compute_end_{}, reduce_begin_{}, reduce_end_{};
  bool computing_ = false, reducing_ = false;
};

class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override {
    if (warm_blas_ != nullptr) cublasDestroy(warm_blas_);
  }
  std::string name() const override { return "cuda"; }
  // The context is created on first use, NCCL initialises itself at its
  // first communicator, and CUDA loads each kernel on its first launch
  // (lazy module loading, the default since CUDA 12.2): on an H100 the
  // first job of a worker waited 0.4-0.6 s before its first step and the
  // first step of each new GEMM shape took 0.1 s more (docs/VALIDATION.md).
  // A one-rank communicator, one SGEMM per power-of-two row count (the
  // shapes micro_batch issues) and one DAXPY pay that here. The handle
  // stays open so the library stays loaded.
  void warm_up() override {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return;  // open() says why
    check(cudaSetDevice(local_rank() % devices), "cudaSetDevice");
    check(cublasCreate(&warm_blas_), "cublasCreate");
    const std::size_t gemm_bytes = static_cast<std::size_t>(kGemmN) * kGemmN * sizeof(float);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    double* x = nullptr;
    for (float** m : {&a, &b, &c}) {
      check(cudaMalloc(m, gemm_bytes), "cudaMalloc warm-up");
      check(cudaMemset(*m, 0, gemm_bytes), "cudaMemset warm-up");
    }
    check(cudaMalloc(&x, 2 * sizeof(double)), "cudaMalloc warm-up");
    const float one = 1.0f, zero = 0.0f;
    for (int m = kGemmN; m >= 1; m /= 2)
      check(cublasSgemm(warm_blas_, CUBLAS_OP_N, CUBLAS_OP_N, m, kGemmN, kGemmN, &one, a, m, b, kGemmN, &zero,
                        c, m),
            "cublasSgemm warm-up");
    const double alpha = 0.0;
    check(cublasDaxpy(warm_blas_, 1, &alpha, x, 1, x + 1, 1), "cublasDaxpy warm-up");
    check(cudaDeviceSynchronize(), "warm-up");
    ncclUniqueId id;
    check(ncclGetUniqueId(&id), "ncclGetUniqueId warm-up");
    ncclComm_t alone = nullptr;
    check(ncclCommInitRank(&alone, 1, id, 0), "ncclCommInitRank warm-up");
    ncclCommDestroy(alone);
    for (void* p :
         {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(x)})
      cudaFree(p);
  }
  std::unique_ptr<DataPlane> open(GroupComm& comm, std::size_t parameter_count) override {
    return std::make_unique<CudaDataPlane>(comm, parameter_count, teardown_);
  }

 private:
  cublasHandle_t warm_blas_ = nullptr;
  std::shared_ptr<BackgroundQueue> teardown_ = std::make_shared<BackgroundQueue>();
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() {
  return std::make_unique<CudaBackend>();
}

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

}  // namespace vnsim::real_exec
