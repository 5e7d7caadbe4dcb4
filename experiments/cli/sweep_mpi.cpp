// Rows travel as one byte buffer per rank ("index length\n" + row bytes), so a
// row may hold any byte, including a quoted line break.
#include "sweep_mpi.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "vnsim/core/error.hpp"

#if VNSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace vnsim::cli {
namespace {

std::string encode(const IndexedRows& rows) {
  std::string out;
  for (const auto& [index, row] : rows)
    out += std::to_string(index) + " " + std::to_string(row.size()) + "\n" + row;
  return out;
}

void decode(const std::string& buffer, IndexedRows& out) {
  std::size_t pos = 0;
  while (pos < buffer.size()) {
    const std::size_t nl = buffer.find('\n', pos);
    std::istringstream head(buffer.substr(pos, nl - pos));
    std::size_t index = 0, length = 0;
    head >> index >> length;
    out.emplace_back(index, buffer.substr(nl + 1, length));
    pos = nl + 1 + length;
  }
}

}  // namespace

#if VNSIM_HAVE_MPI

MpiSession::MpiSession() {
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

IndexedRows MpiSession::gather_to_root(const IndexedRows& mine) const {
  const std::string sent = encode(mine);
  const int length = static_cast<int>(sent.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string received;
  if (rank_ == 0) {
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = total;
      total += lengths[static_cast<std::size_t>(r)];
    }
    received.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(sent.data(), length, MPI_CHAR, received.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  IndexedRows out;
  if (rank_ == 0) decode(received, out);
  return out;
}

std::size_t MpiSession::sum(std::size_t value) const {
  unsigned long long in = value, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return static_cast<std::size_t>(out);
}

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else

MpiSession::MpiSession() {
  throw InputError("--mpi: this vnsim was built without MPI (install libopenmpi-dev)");
}
MpiSession::~MpiSession() = default;
IndexedRows MpiSession::gather_to_root(const IndexedRows& mine) const {
  IndexedRows out;
  decode(encode(mine), out);
  return out;
}
std::size_t MpiSession::sum(std::size_t value) const {
  return value;
}
void MpiSession::abort(int code) const {
  std::exit(code);
}

#endif

}  // namespace vnsim::cli
