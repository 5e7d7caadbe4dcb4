#include "ring_job.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <stdexcept>
#include <string>

#include "flow_job.hpp"
#include "link_registry.hpp"

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {

// Fractions of the first iteration's work already done: the compute before
// the all-reduce, the compute overlapped with it, and the all-reduce.
struct HeadStart {
  double compute = 0;
  double overlapped = 0;
  double allreduce = 0;
};

struct RingState {
  RingJob job;
  HeadStart head;
  std::vector<sg4::Mailbox*> inboxes;  // inboxes[r]: what rank r receives
  double hop_latency_s = 0;            // largest route latency over the ring's hops
  std::size_t ranks_running = 0;
  std::shared_ptr<CompletionChannel> channel;
  // Raw pointers: an ActorPtr here would form a cycle with the actor's code,
  // which holds this state. A rank not yet finished is alive (only
  // stop_ring_job kills), so its pointer is valid.
  std::vector<sg4::Actor*> actors;
  std::vector<long long> done_per_rank;
  std::vector<double> boundary_s;  // when each rank finished its last macro-iteration
  std::vector<char> rank_finished;
  // Each rank's last send lives here, not on the actor's stack, so killing
  // the actor never drops the last reference to an in-flight comm.
  std::vector<sg4::CommPtr> sends;
  std::vector<sg4::ExecPtr> execs;  // each rank's overlapped compute, same reason
  bool stopped = false;
  // Adaptive macro-iterations: the k of each macro-iteration, decided by the
  // first rank to reach it so that every rank sends the same sequence of
  // comms; each rank's current k; the links the ring's hops cross and
  // whether another live job crosses one of them (link_registry.hpp).
  std::vector<long long> k_of_macro;
  std::vector<long long> current_k;
  LinkUser net;
};

namespace {

// k of macro-iteration `index` starting after `done` iterations; 0 = hand
// the job back to the controller here (RingJob::hand_off_when_alone).
long long macro_size(RingState& state, std::size_t index, long long done) {
  if (index == state.k_of_macro.size()) {
    const RingJob& job = state.job;
    if (job.hand_off_when_alone && index > 0 && !state.net.contended) {
      state.k_of_macro.push_back(0);
    } else {
      const long long k = state.net.contended ? job.iterations_per_macro_contended : job.iterations_per_macro;
      state.k_of_macro.push_back(std::min(k, job.iterations - done));
    }
  }
  return state.k_of_macro[index];
}

double max_hop_latency(const std::vector<sg4::Host*>& ranks) {
  double worst = 0;
  for (const HopRoute& hop : ring_hop_routes(ranks)) worst = std::max(worst, hop.latency_s);
  return worst;
}

// Ring all-reduce of S bytes over N ranks: 2(N-1) steps of S/N bytes per
// rank. Sending the 2(N-1)/N*S bytes of k iterations as one comm pays the
// latency once, so the rank sleeps for the other k*2(N-1)-1 latencies; the
// comm on the slowest hop gates every rank, which gives the analytic
// k*2(N-1)*(hop_latency + S/(N*bandwidth)) on an idle network.
// Returns the iterations done when the ring hands off, -1 when it ran them all.
long long run_iterations(const std::shared_ptr<RingState>& state, std::size_t rank, sg4::Mailbox* next,
                         sg4::Mailbox* mine) {
  static int token = 0;  // payload is irrelevant; only the simulated size matters
  const RingJob& job = state->job;
  const auto n = static_cast<double>(job.ranks.size());
  const double steps_per_iteration = 2.0 * (n - 1);
  std::size_t macro = 0;
  for (long long done = 0; done < job.iterations; ++macro) {
    const long long k = macro_size(*state, macro, done);
    if (k == 0) return done;  // every rank stops at the same boundary
    state->current_k[rank] = k;
    const auto kd = static_cast<double>(k);
    // The first iteration may be partly done already (RingJob::head_start_s):
    // phase 1 (the compute before the all-reduce) and phase 2 (the overlapped
    // compute and the all-reduce) each go on from where they were.
    const HeadStart head = macro == 0 ? state->head : HeadStart{};
    // The overlappable tail of the compute runs as an activity beside the
    // ring traffic, so the macro-iteration lasts (1-f)*C + max(f*C, A).
    const double flops = job.flops_per_iteration[rank] / job.compute_rate[rank];
    const double f = job.overlap_fraction;
    sg4::this_actor::execute((kd - head.compute) * (1 - f) * flops);
    const double overlapped_flops = (kd - head.overlapped) * f * flops;
    if (overlapped_flops > 0) state->execs[rank] = sg4::this_actor::exec_async(overlapped_flops);
    const double bytes = (kd - head.allreduce) * steps_per_iteration / n * job.gradient_bytes;
    state->sends[rank] = next->put_async(&token, static_cast<uint64_t>(bytes + 0.5));
    mine->get<int>();
    state->sends[rank]
        ->wait();  // stays referenced until complete (SimGrid 3.32 aborts on a freed in-flight comm)
    const double latency_left = ((kd - head.allreduce) * steps_per_iteration - 1) * state->hop_latency_s;
    if (latency_left > 0) sg4::this_actor::sleep_for(latency_left);
    if (state->execs[rank]) {
      state->execs[rank]->wait();
      state->execs[rank] = nullptr;
    }
    done += k;
    state->done_per_rank[rank] = done;
    state->boundary_s[rank] = sg4::Engine::get_clock();
  }
  return -1;
}

void run_rank(const std::shared_ptr<RingState>& state, std::size_t rank) {
  const RingJob& job = state->job;
  sg4::Mailbox* next = state->inboxes[(rank + 1) % job.ranks.size()];
  sg4::Mailbox* mine = state->inboxes[rank];

  long long handed_off_after = -1;
  try {
    handed_off_after = run_iterations(state, rank, next, mine);
  } catch (const simgrid::NetworkFailureException&) {
    // A stopped job's peers die mid-comm; only then is the failure expected.
    if (!state->stopped) throw;
    return;
  }
  state->rank_finished[rank] = 1;
  if (--state->ranks_running == 0 && !state->stopped) {
    unregister_link_user(state->net);
    state->channel->report(job.job, job.epoch, handed_off_after);
  }
}

}  // namespace

std::vector<HopRoute> ring_hop_routes(const std::vector<sg4::Host*>& ranks) {
  std::vector<HopRoute> hops(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r)  // route_to adds to the latency
    ranks[r]->route_to(ranks[(r + 1) % ranks.size()], hops[r].links, &hops[r].latency_s);
  return hops;
}

std::vector<const sg4::Link*> ring_route_links(const std::vector<sg4::Host*>& ranks) {
  std::vector<const sg4::Link*> out;
  for (const HopRoute& hop : ring_hop_routes(ranks))
    out.insert(out.end(), hop.links.begin(), hop.links.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

long long iterations_per_macro(long long iterations, int macro_iterations) {
  if (iterations <= 0) return 1;
  if (macro_iterations <= 0) return 1;
  return (iterations + macro_iterations - 1) / macro_iterations;
}

long long contended_iterations_per_macro(long long k, bool adaptive, double contended_macro_s,
                                         double iteration_s) {
  if (!adaptive) return k;
  if (!(iteration_s > 0) || !(contended_macro_s > iteration_s)) return 1;
  const double fit = std::floor(contended_macro_s / iteration_s);
  return fit >= static_cast<double>(k) ? k : std::max(1LL, static_cast<long long>(fit));
}

std::shared_ptr<RingState> launch_ring_job(RingJob job, std::shared_ptr<CompletionChannel> channel) {
  if (job.ranks.size() < 2 || job.flops_per_iteration.size() != job.ranks.size())
    throw std::logic_error("ring job " + std::to_string(job.job) +
                           " needs at least 2 ranks with one compute each");
  auto state = std::make_shared<RingState>();
  state->hop_latency_s = max_hop_latency(job.ranks);
  state->ranks_running = job.ranks.size();
  state->channel = std::move(channel);
  // Built with += : GCC 12 -Wrestrict misfires on "literal" + std::string&&.
  std::string prefix = "j";
  prefix += std::to_string(job.job);
  prefix += 'e';
  prefix += std::to_string(job.epoch);
  prefix += 'r';
  for (std::size_t r = 0; r < job.ranks.size(); ++r)
    state->inboxes.push_back(sg4::Mailbox::by_name(prefix + std::to_string(r)));
  const std::size_t n = job.ranks.size();
  state->done_per_rank.assign(n, 0);
  state->boundary_s.assign(n, sg4::Engine::get_clock());
  state->rank_finished.assign(n, 0);
  state->sends.resize(n);
  state->execs.resize(n);
  state->current_k.assign(n, 1);
  state->net.links = ring_route_links(job.ranks);
  if (job.compute_rate.empty()) job.compute_rate.assign(n, 1.0);
  if (job.compute_rate.size() != n) throw std::logic_error("ring job: one compute rate per rank needed");
  if (job.head_start_s > 0) {
    // On an idle network the step is (1-f)C, then f*C beside the all-reduce
    // A, C being the slowest rank's compute (perf_model.hpp).
    double slowest = 0;
    for (std::size_t r = 0; r < n; ++r)
      slowest =
          std::max(slowest, job.flops_per_iteration[r] / job.ranks[r]->get_speed() / job.compute_rate[r]);
    const double f = job.overlap_fraction;
    const double before = (1 - f) * slowest;
    const double t = job.head_start_s;
    const auto share = [](double done, double length) {
      return length > 0 ? std::clamp(done / length, 0.0, 1.0) : 1.0;
    };
    state->head.compute = share(t, before);
    state->head.overlapped = share(t - before, f * slowest);
    state->head.allreduce = t > before ? share(t - before, job.allreduce_s) : 0.0;
  }
  state->job = std::move(job);
  register_link_user(state->net);
  for (std::size_t r = 0; r < n; ++r)
    state->actors.push_back(sg4::Actor::create(prefix + std::to_string(r), state->job.ranks[r], [state, r] {
                              run_rank(state, r);
                            }).get());
  return state;
}

long long ring_iterations_done(const RingState& state, double now_s, double iteration_s) {
  const auto slowest = std::min_element(state.done_per_rank.begin(), state.done_per_rank.end());
  const long long whole = *slowest;
  const auto slowest_rank = static_cast<std::size_t>(slowest - state.done_per_rank.begin());
  const long long in_flight = std::min(state.current_k[slowest_rank], state.job.iterations - whole);
  if (in_flight <= 1 || !(iteration_s > 0)) return whole;
  const double since = now_s - state.boundary_s[slowest_rank];
  const auto partial = static_cast<long long>(std::floor(std::max(0.0, since) / iteration_s));
  return whole + std::min(partial, in_flight - 1);
}

void set_ring_rank_rate(RingState& state, std::size_t rank, double rate) {
  if (!(rate > 0)) throw std::logic_error("ring job: compute rate must be > 0");
  state.job.compute_rate.at(rank) = rate;
}

bool release_ring_if_quiescent(RingState& state) {
  for (const auto& c : state.sends)
    if (c && !activity_is_over(*c)) return false;
  for (const auto& e : state.execs)
    if (e && !activity_is_over(*e)) return false;
  state.sends.clear();
  state.execs.clear();
  return true;
}

void stop_ring_job(RingState& state) {
  state.stopped = true;
  unregister_link_user(state.net);
  for (std::size_t r = 0; r < state.actors.size(); ++r)
    if (!state.rank_finished[r]) state.actors[r]->kill();
  // A send still waiting in a mailbox for a receiver that was killed stays
  // "started" seen from s4u, and would keep the ring from being released.
  for (auto& c : state.sends)
    if (c && !activity_is_over(*c)) c->cancel();
  for (auto& e : state.execs)
    if (e && !activity_is_over(*e)) e->cancel();
}

}  // namespace vnsim::sim
