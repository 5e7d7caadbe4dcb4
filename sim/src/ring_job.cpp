#include "ring_job.hpp"

#include <algorithm>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <stdexcept>
#include <string>

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

struct RingState {
  RingJob job;
  std::vector<sg4::Mailbox*> inboxes;  // inboxes[r]: what rank r receives
  double hop_latency_s = 0;            // largest route latency over the ring's hops
  std::size_t ranks_running = 0;
  std::shared_ptr<CompletionChannel> channel;
};

double max_hop_latency(const std::vector<sg4::Host*>& ranks) {
  double worst = 0;
  std::vector<sg4::Link*> links;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    double latency = 0;  // route_to adds to it
    links.clear();
    ranks[r]->route_to(ranks[(r + 1) % ranks.size()], links, &latency);
    worst = std::max(worst, latency);
  }
  return worst;
}

// Ring all-reduce of S bytes over N ranks: 2(N-1) steps of S/N bytes per
// rank. Sending the 2(N-1)/N*S bytes of k iterations as one comm pays the
// latency once, so the rank sleeps for the other k*2(N-1)-1 latencies; the
// comm on the slowest hop gates every rank, which gives the analytic
// k*2(N-1)*(hop_latency + S/(N*bandwidth)) on an idle network.
void run_rank(const std::shared_ptr<RingState>& state, std::size_t rank) {
  static int token = 0;  // payload is irrelevant; only the simulated size matters
  const RingJob& job = state->job;
  const auto n = static_cast<double>(job.ranks.size());
  const double steps_per_iteration = 2.0 * (n - 1);
  sg4::Mailbox* next = state->inboxes[(rank + 1) % job.ranks.size()];
  sg4::Mailbox* mine = state->inboxes[rank];

  for (long long done = 0; done < job.iterations;) {
    const long long k = std::min(job.iterations_per_macro, job.iterations - done);
    const auto kd = static_cast<double>(k);
    sg4::this_actor::execute(kd * job.flops_per_iteration[rank]);
    const double bytes = kd * steps_per_iteration / n * job.gradient_bytes;
    sg4::CommPtr send = next->put_async(&token, static_cast<uint64_t>(bytes + 0.5));
    mine->get<int>();
    send->wait();  // `send` stays referenced until complete (simgrid.md §8.2)
    const double latency_left = (kd * steps_per_iteration - 1) * state->hop_latency_s;
    if (latency_left > 0) sg4::this_actor::sleep_for(latency_left);
    done += k;
  }
  if (--state->ranks_running == 0) state->channel->report(job.job);
}

}  // namespace

long long iterations_per_macro(long long iterations, int macro_iterations) {
  if (iterations <= 0) return 1;
  if (macro_iterations <= 0) return 1;
  return (iterations + macro_iterations - 1) / macro_iterations;
}

void launch_ring_job(RingJob job, std::shared_ptr<CompletionChannel> channel) {
  if (job.ranks.size() < 2 || job.flops_per_iteration.size() != job.ranks.size())
    throw std::logic_error("ring job " + std::to_string(job.job) +
                           " needs at least 2 ranks with one compute each");
  auto state = std::make_shared<RingState>();
  state->hop_latency_s = max_hop_latency(job.ranks);
  state->ranks_running = job.ranks.size();
  state->channel = std::move(channel);
  const std::string prefix = "j" + std::to_string(job.job) + "e" + std::to_string(job.epoch) + "r";
  for (std::size_t r = 0; r < job.ranks.size(); ++r)
    state->inboxes.push_back(sg4::Mailbox::by_name(prefix + std::to_string(r)));
  state->job = std::move(job);
  for (std::size_t r = 0; r < state->job.ranks.size(); ++r)
    sg4::Actor::create(prefix + std::to_string(r), state->job.ranks[r], [state, r] { run_rank(state, r); });
}

}  // namespace vnsim::sim
