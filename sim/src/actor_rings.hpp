#pragma once
// Actor rings (--actor-rings): every multi-node ring job runs as one SimGrid
// actor per GPU in macro-iterations from its start to its end or stop
// (ring_job.hpp), so contention is simulated comm by comm.
#include <memory>
#include <vector>

#include "ring_job.hpp"
#include "ring_timing.hpp"

namespace vnsim::sim {

class ActorRings final : public RingTiming {
 public:
  explicit ActorRings(const RingContext& ctx);

  void start(JobIndex job, const Placement& placement, long long iterations, double now) override;
  bool holds(JobIndex job) const override { return rings_[job].ring != nullptr; }
  long long stop(JobIndex job, double now, bool count) override;
  void finish(JobIndex job) override;
  void speed_changed(JobIndex job, double now) override;

 private:
  struct Ring {
    Placement placement;
    std::shared_ptr<RingState> ring;
  };
  std::vector<Ring> rings_;  // per job
};

}  // namespace vnsim::sim
