#include "wire.hpp"

#include <mpi.h>

#include "mpi_group_comm.hpp"

namespace vnsim::real_exec::mpi {

std::vector<long long> encode_launch(const Launch& l) {
  std::vector<long long> w = {
      static_cast<long long>(l.job),        l.epoch,       l.start_iteration,   l.global_batch,
      static_cast<long long>(l.params),     l.params_root, l.fail_at_iteration, l.total_iterations,
      static_cast<long long>(l.gpus.size())};
  for (GpuId g : l.gpus) w.push_back(g);
  for (int v : l.vn_per_gpu) w.push_back(v);
  return w;
}

Launch decode_launch(const std::vector<long long>& w, std::size_t o) {
  Launch l;
  l.job = static_cast<JobIndex>(w.at(o));
  l.epoch = static_cast<int>(w.at(o + 1));
  l.start_iteration = w.at(o + 2);
  l.global_batch = static_cast<int>(w.at(o + 3));
  l.params = static_cast<ParamSource>(w.at(o + 4));
  l.params_root = static_cast<int>(w.at(o + 5));
  l.fail_at_iteration = w.at(o + 6);
  l.total_iterations = w.at(o + 7);
  const auto n = static_cast<std::size_t>(w.at(o + 8));
  for (std::size_t i = 0; i < n; ++i) l.gpus.push_back(static_cast<GpuId>(w.at(o + 9 + i)));
  for (std::size_t i = 0; i < n; ++i) l.vn_per_gpu.push_back(static_cast<int>(w.at(o + 9 + n + i)));
  return l;
}

std::vector<long long> encode_command(JobIndex job, int epoch, long long command, const Launch* next) {
  std::vector<long long> w = {static_cast<long long>(job), epoch, command};
  if (next) {
    const auto l = encode_launch(*next);
    w.insert(w.end(), l.begin(), l.end());
  }
  return w;
}

std::vector<double> encode_event(const FleetEvent& e) {
  return {static_cast<double>(e.kind),
          static_cast<double>(e.job),
          static_cast<double>(e.epoch),
          e.time_s,
          static_cast<double>(e.iteration),
          e.seconds,
          e.compute_s,
          e.allreduce_s,
          e.params_consistent ? 1.0 : 0.0,
          static_cast<double>(e.checksum >> 32),
          static_cast<double>(e.checksum & 0xffffffffULL),
          static_cast<double>(e.failed_gpu)};
}

FleetEvent decode_event(const std::vector<double>& w) {
  FleetEvent e;
  e.kind = static_cast<FleetEvent::Kind>(static_cast<int>(w.at(0)));
  e.job = static_cast<JobIndex>(w.at(1));
  e.epoch = static_cast<int>(w.at(2));
  e.time_s = w.at(3);
  e.iteration = static_cast<long long>(w.at(4));
  e.seconds = w.at(5);
  e.compute_s = w.at(6);
  e.allreduce_s = w.at(7);
  e.params_consistent = w.at(8) != 0;
  e.checksum = (static_cast<std::uint64_t>(w.at(9)) << 32) | static_cast<std::uint64_t>(w.at(10));
  e.failed_gpu = static_cast<GpuId>(w.at(11));
  return e;
}

std::vector<long long> receive_longs(int source, int tag, int* from) {
  MPI_Status st;
  wait_for_message(source, tag, &st);
  int count = 0;
  MPI_Get_count(&st, MPI_LONG_LONG, &count);
  std::vector<long long> w(static_cast<std::size_t>(count));
  MPI_Recv(w.data(), count, MPI_LONG_LONG, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (from) *from = st.MPI_SOURCE;
  return w;
}

}  // namespace vnsim::real_exec::mpi
