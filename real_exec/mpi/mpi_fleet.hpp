#pragma once
// The controller's side of the wire: WorkerFleet over MPI point-to-point.
#include <map>
#include <vector>

#include "vnsim/real_exec/worker_fleet.hpp"

namespace vnsim::real_exec::mpi {

class MpiFleet final : public WorkerFleet {
 public:
  // clock_offset_s: a resumed run's clock continues where the killed attempt's log ends.
  MpiFleet(int workers, double clock_offset_s) : workers_(workers), clock_offset_s_(clock_offset_s) {}
  double now_s() override;
  void start(const Launch& launch) override;
  void stop(JobIndex job, int epoch) override;
  void resize(JobIndex job, int epoch, const Launch& next) override;
  std::vector<FleetEvent> wait(double until_s) override;
  void shutdown() override;

 private:
  void send_launch(const Launch& l, GpuId g);
  int workers_;
  double clock_offset_s_;
  std::map<JobIndex, std::vector<GpuId>> members_;  // current rank set per job
  // Resizes whose joining workers are sent their launch once the old rank
  // set reached the step boundary (it may finish instead), keyed by the old
  // segment's epoch: a policy may resize again before the previous resize
  // took effect, and each resize's joiners belong to its own boundary.
  struct PendingResize {
    Launch next;
    std::vector<GpuId> joining;
  };
  std::map<JobIndex, std::map<int, PendingResize>> joiners_;
};

}  // namespace vnsim::real_exec::mpi
