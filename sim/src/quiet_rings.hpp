#pragma once
// Quiet rings (--quiet-rings): a multi-node ring job whose links no other
// running job crosses is timed analytically, with no actor and no activity,
// because alone on its links the simulated ring takes the idle-network
// iteration time (ring_accuracy_test). It registers its links all the same.
// When a job that shares one of them starts, the ring's progress so far is
// banked and its actors are launched for the rest; they run contended
// macro-iterations of at most ReplayOptions::contended_macro_s and hand the
// job back at the first boundary where it is alone again. The cost of a ring
// job then follows the time it spends contended, not its iteration count nor
// how often a policy moves it (docs/PERFORMANCE.md, "Quiet rings").
#include <memory>
#include <vector>

#include "link_registry.hpp"
#include "ring_job.hpp"
#include "ring_timing.hpp"

namespace vnsim::sim {

class QuietRings final : public RingTiming {
 public:
  explicit QuietRings(const RingContext& ctx);

  void start(JobIndex job, const Placement& placement, long long iterations, double now) override;
  bool holds(JobIndex job) const override { return rings_[job].ring || rings_[job].quiet; }
  long long stop(JobIndex job, double now, bool count) override;
  void finish(JobIndex job) override;
  void speed_changed(JobIndex job, double now) override;
  void traffic_changed(double now) override;
  void handed_back(JobIndex job, int epoch, long long iterations, double now) override;

 private:
  struct Ring {
    Placement placement;
    long long iterations = 0;         // left when the run began
    long long banked_iterations = 0;  // done in the run's earlier segments (quiet or actors)
    std::shared_ptr<RingState> ring;  // while contended: its actors
    std::unique_ptr<LinkUser> quiet;  // while alone: its links, registered
  };
  long long iterations_left(const Ring& r) const { return r.iterations - r.banked_iterations; }
  // Times the iterations left analytically if the ring is alone on its
  // links; false (nothing changed) when it is not.
  bool start_quiet_segment(JobIndex job, double now);
  // The iterations left run as actors, which hand the job back once alone.
  void simulate_segment(JobIndex job, double now, double head_start_s);
  void leave_quiet_segment(JobIndex job, double now);
  void stop_quiet_segment(Ring& r);

  std::vector<Ring> rings_;  // per job
  std::vector<JobIndex> woken_;
};

}  // namespace vnsim::sim
