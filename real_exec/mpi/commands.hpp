#pragma once
#include <memory>

#include "options.hpp"
#include "vnsim/real_exec/data_plane.hpp"

namespace vnsim::real_exec::mpi {

// The backend named by --backend; throws InputError when it was not built.
std::unique_ptr<Backend> make_backend(const std::string& name);
int run_command(const Options& options, int world_rank, int world_size);
int calibrate_command(const Options& options, int world_rank, int world_size);

}  // namespace vnsim::real_exec::mpi
