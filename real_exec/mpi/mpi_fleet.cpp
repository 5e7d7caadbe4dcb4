#include "mpi_fleet.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "mpi_group_comm.hpp"
#include "vnsim/real_exec/step_runner.hpp"
#include "wire.hpp"

namespace vnsim::real_exec::mpi {

double MpiFleet::now_s() {
  return wall_s() + clock_offset_s_;
}

void MpiFleet::send_launch(const Launch& l, GpuId g) {
  const std::vector<long long> w = encode_launch(l);
  MPI_Send(w.data(), static_cast<int>(w.size()), MPI_LONG_LONG, g + 1, kTagLaunch, MPI_COMM_WORLD);
}

void MpiFleet::start(const Launch& l) {
  members_[l.job] = l.gpus;
  for (GpuId g : l.gpus) send_launch(l, g);
}

void MpiFleet::stop(JobIndex job, int epoch) {
  const std::vector<long long> w = encode_command(job, epoch, static_cast<long long>(Command::Stop), nullptr);
  MPI_Send(w.data(), static_cast<int>(w.size()), MPI_LONG_LONG, members_.at(job).front() + 1, kTagCommand,
           MPI_COMM_WORLD);
}

void MpiFleet::resize(JobIndex job, int epoch, const Launch& next) {
  const std::vector<GpuId>& old = members_.at(job);
  const std::vector<long long> w = encode_command(job, epoch, static_cast<long long>(Command::Resize), &next);
  MPI_Send(w.data(), static_cast<int>(w.size()), MPI_LONG_LONG, old.front() + 1, kTagCommand, MPI_COMM_WORLD);
  std::vector<GpuId> joining;
  for (GpuId g : next.gpus)
    if (std::find(old.begin(), old.end(), g) == old.end()) joining.push_back(g);
  joiners_[job][epoch] = {next, joining};
  members_[job] = next.gpus;
}

std::vector<FleetEvent> MpiFleet::wait(double until_s) {
  std::vector<FleetEvent> events;
  while (true) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagEvent, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      std::vector<double> w(kEventWords);
      MPI_Recv(w.data(), kEventWords, MPI_DOUBLE, st.MPI_SOURCE, kTagEvent, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      FleetEvent e = decode_event(w);
      e.time_s = now_s();  // one clock for the whole log: the controller's
      auto j = joiners_.find(e.job);
      if (j != joiners_.end() && e.kind != FleetEvent::Kind::Iteration &&
          e.kind != FleetEvent::Kind::Resized) {
        auto& pending = j->second;
        const auto at = pending.find(e.epoch);
        if (e.kind == FleetEvent::Kind::ResizeBoundary && at != pending.end()) {
          // The old rank set reached the boundary of this resize.
          for (GpuId g : at->second.joining) send_launch(at->second.next, g);
          pending.erase(at);
        } else if (e.kind != FleetEvent::Kind::ResizeBoundary) {
          // The segment ended otherwise: its resize, and any chained after
          // it, never happen, so nobody joins.
          pending.erase(pending.lower_bound(e.epoch), pending.end());
        }
        if (pending.empty()) joiners_.erase(j);
      }
      events.push_back(e);
      continue;
    }
    if (!events.empty() || now_s() >= until_s) return events;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

void MpiFleet::shutdown() {
  const long long exit_word = -1;
  for (int g = 0; g < workers_; ++g)
    MPI_Send(&exit_word, 1, MPI_LONG_LONG, g + 1, kTagLaunch, MPI_COMM_WORLD);
}

}  // namespace vnsim::real_exec::mpi
