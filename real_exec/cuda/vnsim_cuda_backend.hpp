#pragma once
// The cuda backend: cuBLAS GEMMs sized to the model's flops, the gradient
// buffer in device memory, one NCCL all-reduce per step, CUDA-event timing.
// Built only where CUDAToolkit and NCCL are found (real_exec/CMakeLists.txt).
#include <memory>

#include "vnsim/real_exec/data_plane.hpp"

namespace vnsim::real_exec {

std::unique_ptr<Backend> make_cuda_backend();
// Visible devices (0 when there is no GPU or no driver).
int cuda_device_count();

}  // namespace vnsim::real_exec
