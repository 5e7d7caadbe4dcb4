#pragma once
// A multi-node job as one actor per GPU doing a ring all-reduce over mailbox
// comms, in macro-iterations (docs/PERFORMANCE.md): each macro-iteration of k
// iterations computes k iterations, then sends k iterations' worth of ring
// traffic to the next rank in one comm, so the network carries the job's
// traffic with the right duty cycle at a cost that does not grow with k.
#include <memory>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <vector>

#include "completion_channel.hpp"

namespace vnsim::sim {

struct RingJob {
  JobIndex job = 0;
  int epoch = 0;  // part of mailbox names, so a relaunch never matches stale messages
  std::vector<simgrid::s4u::Host*> ranks;   // ring order
  std::vector<double> flops_per_iteration;  // per rank
  // Per rank: compute speed next to the GPU's co-tenants (GPU sharing,
  // 1 = alone); empty = all 1. Changed while running by set_ring_rank_rate.
  std::vector<double> compute_rate;
  double gradient_bytes = 0;  // all-reduced per iteration
  // Last fraction of each iteration's compute that runs while the gradient
  // ring is in flight (ModelParams::overlap_fraction; perf_model.hpp).
  double overlap_fraction = 0;
  long long iterations = 0;
  long long iterations_per_macro = 1;  // k
  // Adaptive macro-iterations: a macro-iteration that starts while the ring
  // shares a link with another running job has this many iterations
  // (contended_iterations_per_macro), so contention is simulated at a fine
  // grain; alone on its links a ring is exact for any k
  // (docs/PERFORMANCE.md).
  long long iterations_per_macro_contended = 1;
  // Quiet rings (docs/PERFORMANCE.md): at a macro-iteration boundary after
  // the first, a ring alone on its links stops and reports the iterations
  // it did with the `handed_off_after` field of its report, so the
  // controller can time the rest analytically.
  bool hand_off_when_alone = false;
  // Seconds of the first iteration already done at idle-network speed (a
  // quiet segment that ended mid-iteration), and that iteration's length.
  double head_start_s = 0;
  double allreduce_s = 0;  // the idle-network all-reduce of one iteration
};

// The route of each hop of a ring over `ranks` (in ring order): hop r goes
// from rank r to rank r+1 (the last back to rank 0).
struct HopRoute {
  std::vector<simgrid::s4u::Link*> links;
  double latency_s = 0;
};
std::vector<HopRoute> ring_hop_routes(const std::vector<simgrid::s4u::Host*>& ranks);

// The links a ring over `ranks` (in ring order) crosses, sorted and unique.
std::vector<const simgrid::s4u::Link*> ring_route_links(const std::vector<simgrid::s4u::Host*>& ranks);

// k = ceil(iterations / M); M <= 0 means one iteration per macro-iteration
// (every iteration simulated: the reference for fidelity studies).
long long iterations_per_macro(long long iterations, int macro_iterations);

// k while contended: as many whole iterations of idle-network length
// `iteration_s` as fit in `contended_macro_s` (at least 1, at most k);
// `adaptive` false keeps k (plain macro-iterations).
long long contended_iterations_per_macro(long long k, bool adaptive, double contended_macro_s,
                                         double iteration_s);

// The live state of one launched ring job (opaque outside ring_job.cpp).
struct RingState;

// Starts the rank actors. When the last rank finishes, (job index, epoch) is
// reported on `channel`. Must be called from inside the simulation. The
// returned state must outlive the actors' activities: keep it until the end
// of the run once the job was stopped (in SimGrid 3.32, dropping the last reference to an in-flight comm
// aborts with "Comm freed before its completion").
std::shared_ptr<RingState> launch_ring_job(RingJob job, std::shared_ptr<CompletionChannel> channel);

// Iterations done at `now_s`, for a preemption: the macro-iterations every
// rank finished, plus the whole iterations of idle-network length
// `iteration_s` that fit in the time since the slowest rank's last
// macro-iteration ended (short of the next boundary). Without that credit a
// job preempted more often than once per macro-iteration would never
// progress; the credit is an estimate (contention makes iterations slower).
long long ring_iterations_done(const RingState& state, double now_s, double iteration_s);

// GPU sharing: rank `rank` computes at `rate` of its alone speed from its
// next macro-iteration on (the one in flight keeps its duration).
void set_ring_rank_rate(RingState& state, std::size_t rank, double rate);

// Preemption: kills the rank actors still running; nothing is reported on
// the channel.
void stop_ring_job(RingState& state);

// After stop_ring_job or the ring's end: true once none of its comms and
// computations is in flight; they are then released (which cuts the
// state -> comm -> actor -> state cycle, see flow_job.hpp) and the state may be
// dropped.
bool release_ring_if_quiescent(RingState& state);

}  // namespace vnsim::sim
