#pragma once
// GroupComm over an MPI communicator, and the helpers vnexec's ranks share.
#include <mpi.h>

#include <string>
#include <vector>

#include "vnsim/real_exec/group_comm.hpp"

namespace vnsim::real_exec::mpi {

class MpiGroupComm final : public GroupComm {
 public:
  explicit MpiGroupComm(MPI_Comm comm, bool owned);
  ~MpiGroupComm() override;
  MpiGroupComm(const MpiGroupComm&) = delete;
  MpiGroupComm& operator=(const MpiGroupComm&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(double* data, std::size_t count) override;
  void allreduce_max(long long* data, std::size_t count) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  MPI_Comm handle() const { return comm_; }

 private:
  MPI_Comm comm_;
  bool owned_;
  int rank_ = 0, size_ = 0;
};

// The communicator of world ranks `ranks` (in that order), created
// collectively by those ranks only, so other ranks keep working.
MPI_Comm create_group_comm(const std::vector<int>& ranks, int tag);

// Seconds since the run started (MPI_Wtime is global when
// MPI_WTIME_IS_GLOBAL; otherwise only the controller's clock is used).
double wall_s();

// Sleeps instead of spinning while waiting for a message, so idle ranks do
// not steal CPU from working ones on an oversubscribed machine.
void wait_for_message(int source, int tag, MPI_Status* status);

}  // namespace vnsim::real_exec::mpi
