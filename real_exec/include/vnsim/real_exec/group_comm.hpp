#pragma once
// The collectives a job's ranks need, behind an interface so that executor
// logic runs the same over MPI (vnexec), NCCL bootstrap, or an in-process
// fake in unit tests. No MPI header here: core/policies-level code may use it.
#include <cstddef>

namespace vnsim::real_exec {

class GroupComm {
 public:
  virtual ~GroupComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // In place: every rank ends with the element-wise sum over all ranks.
  virtual void allreduce_sum(double* data, std::size_t count) = 0;
  // In place: every rank ends with the element-wise maximum.
  virtual void allreduce_max(long long* data, std::size_t count) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
};

}  // namespace vnsim::real_exec
