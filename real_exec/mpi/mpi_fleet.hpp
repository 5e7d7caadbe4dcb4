#pragma once
// The controller's side of the wire: WorkerFleet over MPI point-to-point.
#include <map>
#include <vector>

#include "vnsim/real_exec/worker_fleet.hpp"

namespace vnsim::real_exec::mpi {

class MpiFleet final : public WorkerFleet {
 public:
  explicit MpiFleet(int workers) : workers_(workers) {}
  double now_s() override;
  void start(const Launch& launch) override;
  void stop(JobIndex job, int epoch) override;
  void resize(JobIndex job, int epoch, const Launch& next) override;
  std::vector<FleetEvent> wait(double until_s) override;
  void shutdown() override;

 private:
  void send_launch(const Launch& l, GpuId g);
  int workers_;
  std::map<JobIndex, std::vector<GpuId>> members_;  // current rank set per job
  // Resizes whose joining workers are sent their launch once the old rank
  // set reached the step boundary (it may finish instead).
  std::map<JobIndex, std::pair<Launch, std::vector<GpuId>>> joiners_;
};

}  // namespace vnsim::real_exec::mpi
