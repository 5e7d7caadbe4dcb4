#include "mpi_group_comm.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

namespace vnsim::real_exec::mpi {

MpiGroupComm::MpiGroupComm(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiGroupComm::~MpiGroupComm() {
  if (owned_) MPI_Comm_free(&comm_);
}

void MpiGroupComm::allreduce_sum(double* data, std::size_t count) {
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, comm_);
}

void MpiGroupComm::allreduce_max(long long* data, std::size_t count) {
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_LONG_LONG, MPI_MAX, comm_);
}

void MpiGroupComm::broadcast(void* data, std::size_t bytes, int root) {
  MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_);
}

MPI_Comm create_group_comm(const std::vector<int>& ranks, int tag) {
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &group);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &comm);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  if (comm == MPI_COMM_NULL) throw std::logic_error("MPI_Comm_create_group returned no communicator");
  return comm;
}

double wall_s() {
  static const double t0 = MPI_Wtime();
  return MPI_Wtime() - t0;
}

void wait_for_message(int source, int tag, MPI_Status* status) {
  int flag = 0;
  while (true) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, status);
    if (flag) return;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

}  // namespace vnsim::real_exec::mpi
