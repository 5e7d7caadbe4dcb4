#pragma once
// MPI for distributed sweeps, kept in the CLI so no other module sees MPI.
// Without MPI at build time, constructing an MpiSession throws InputError.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace vnsim::cli {

using IndexedRows = std::vector<std::pair<std::size_t, std::string>>;

class MpiSession {
 public:
  MpiSession();   // MPI_Init
  ~MpiSession();  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank 0 receives every rank's rows (its own first, then rank 1's, ...);
  // the other ranks get an empty list.
  IndexedRows gather_to_root(const IndexedRows& mine) const;
  std::size_t sum(std::size_t value) const;  // over all ranks, on every rank
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace vnsim::cli
