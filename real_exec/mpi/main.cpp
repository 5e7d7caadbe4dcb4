// vnexec: the real executor, launched under mpirun (docs/REAL_EXEC.md).
// Any error on any rank aborts the whole MPI job with a one-line reason, so
// no rank is left waiting for a partner that is gone.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mpi_group_comm.hpp"
#include "options.hpp"
#include "vnsim/core/error.hpp"

#if VNSIM_HAVE_CUDA
#include "vnsim_cuda_backend.hpp"
#endif

#if defined(__SANITIZE_ADDRESS__)
// Open MPI keeps allocations from MPI_Init past MPI_Finalize (component and
// parameter tables), which LeakSanitizer reports at exit and which would
// fail every ASan run of vnexec. Only stacks through Open MPI's libraries
// are suppressed; the slow unwinder is needed to see frames through them.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libmpi.so\nleak:libopen-rte.so\nleak:libopen-pal.so\nleak:libpmix.so\nleak:libhwloc.so\nleak:"
         "libevent\n";
}
extern "C" const char* __lsan_default_options() {
  return "print_suppressions=0";
}
extern "C" const char* __asan_default_options() {
  return "fast_unwind_on_malloc=0";
}
#endif

namespace vnsim::real_exec::mpi {

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "cpu") return make_cpu_backend();
#if VNSIM_HAVE_CUDA
  if (name == "cuda") return make_cuda_backend();
#endif
  throw InputError("--backend " + name + ": this vnexec was built without it (CUDA and NCCL not found)");
}

}  // namespace vnsim::real_exec::mpi

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // Help is answered before MPI_Init, so `vnexec run --help` (with or
  // without mpirun) prints the usage and exits 0 on every rank instead of
  // reaching the option parser and an MPI_Abort.
  bool help = args.empty() || args[0] == "help";
  for (const auto& a : args) help = help || a == "--help" || a == "-h";
  if (help) {
    std::fputs(vnsim::real_exec::mpi::usage(), stdout);
    return args.empty() ? 2 : 0;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  vnsim::real_exec::mpi::wall_s();  // starts the clock
  int code = 0;
  try {
    const auto options = vnsim::real_exec::mpi::parse_options(args);
    if (size < 2) throw vnsim::InputError("vnexec needs at least 2 MPI ranks (a controller and a worker)");
    code = options.command == "run" ? vnsim::real_exec::mpi::run_command(options, rank, size)
                                    : vnsim::real_exec::mpi::calibrate_command(options, rank, size);
  } catch (const vnsim::InputError& e) {
    if (rank == 0) std::fprintf(stderr, "vnexec: error: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vnexec: rank %d: internal error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
