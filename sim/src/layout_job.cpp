#include "layout_job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <stdexcept>
#include <string>

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

int g_token = 0;        // payload is irrelevant; only the simulated size matters
int* g_sink = nullptr;  // where received payloads land

class LayoutState : public FlowJob {
 public:
  LayoutSimJob job;
  std::shared_ptr<CompletionChannel> channel;
  std::unique_ptr<MacroPlan> plan;  // k of each macro-iteration
  LinkUser net;                     // the PP and DP routes
  // What rank r receives: from the previous stage, the next stage, and the
  // previous DP rank.
  std::vector<sg4::Mailbox*> forward_in, backward_in, dp_in;
  double pp_latency_s = 0;  // largest route latency of the PP sends
  double dp_latency_s = 0;  // largest route latency of the DP ring steps
  ActorGroup group;
  std::size_t ranks_running = 0;
  std::vector<long long> done;
  std::vector<double> boundary_s;
  std::vector<long long> in_flight;

  long long iterations_done(double now_s) const override {
    const auto slowest = std::min_element(done.begin(), done.end());
    const auto r = static_cast<std::size_t>(slowest - done.begin());
    if (in_flight[r] <= 1 || !(job.iteration_s > 0)) return *slowest;
    const auto partial =
        static_cast<long long>(std::floor(std::max(0.0, now_s - boundary_s[r]) / job.iteration_s));
    return *slowest + std::min(partial, in_flight[r] - 1);
  }

  void stop() override {
    unregister_link_user(net);
    group.kill_unfinished();
  }

  bool release_if_quiescent() override { return group.release_if_quiescent(); }
};

// One exchange: send `bytes` to `to` (if any), receive from `from` (if any).
void exchange(std::vector<sg4::CommPtr>& comms, sg4::Mailbox* to, sg4::Mailbox* from, double bytes) {
  comms.clear();
  if (to) comms.push_back(to->put_async(&g_token, static_cast<std::uint64_t>(bytes + 0.5)));
  if (from) comms.push_back(from->get_async<int>(&g_sink));
  sg4::Comm::wait_all(comms);
  comms.clear();
}

void run_rank(LayoutState& st, std::size_t r) {
  const LayoutSimJob& job = st.job;
  const ParallelLayout& l = job.layout;
  const auto stride = static_cast<std::size_t>(l.tp * l.dp);
  const auto stage = static_cast<int>(r / stride);
  const auto tp_rank = static_cast<int>(r % static_cast<std::size_t>(l.tp));
  const int dp_rank = static_cast<int>(r % stride) / l.tp;
  const auto dp_next = static_cast<std::size_t>(tp_rank + l.tp * ((dp_rank + 1) % l.dp + l.dp * stage));
  auto& comms = st.group.comms[r];
  const bool has_next = stage + 1 < l.pp;
  const bool has_previous = stage > 0;
  for (std::size_t i = 0;; ++i) {
    const long long k = st.plan->size(i, st.net.contended);
    if (k == 0) break;
    st.in_flight[r] = k;
    const double steps = static_cast<double>(k * job.pipeline_steps);
    sg4::this_actor::sleep_for(steps * job.local_step_s);
    if (l.pp > 1) {
      // Activations forward, then gradients backward, as the analytic model
      // prices them (one after the other); one comm carries the k
      // pipelines' bytes, so the other latencies are slept.
      const double bytes = steps * job.pp_flow_bytes;
      exchange(comms, has_next ? st.forward_in[r + stride] : nullptr,
               has_previous ? st.forward_in[r] : nullptr, bytes);
      exchange(comms, has_previous ? st.backward_in[r - stride] : nullptr,
               has_next ? st.backward_in[r] : nullptr, bytes);
      sg4::this_actor::sleep_for(2.0 * (steps - 1) * st.pp_latency_s);
    }
    if (l.dp > 1) {
      const double ring_steps = static_cast<double>(k) * 2.0 * (l.dp - 1);
      exchange(comms, st.dp_in[dp_next], st.dp_in[r], ring_steps * job.dp_chunk_bytes);
      sg4::this_actor::sleep_for((ring_steps - 1) * st.dp_latency_s);
    }
    st.done[r] += k;
    st.boundary_s[r] = sg4::Engine::get_clock();
  }
}

double route_latency(sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;  // route_to adds to it
  a->route_to(b, links, &latency);
  return latency;
}

}  // namespace

std::shared_ptr<FlowJob> launch_layout_job(LayoutSimJob job, std::shared_ptr<CompletionChannel> channel) {
  const ParallelLayout& l = job.layout;
  const std::size_t n = job.ranks.size();
  if (n != static_cast<std::size_t>(l.dp) * l.tp * l.pp || n == 0)
    throw std::logic_error("layout job " + std::to_string(job.job) + ": " + std::to_string(n) +
                           " ranks for layout " + describe(l));
  auto st = std::make_shared<LayoutState>();
  st->channel = std::move(channel);
  st->plan = std::make_unique<MacroPlan>(job.iterations, job.iterations_per_macro,
                                         job.iterations_per_macro_contended);
  std::string prefix = "j";  // built with += : GCC 12 -Wrestrict misfires on "literal" + std::string&&
  prefix += std::to_string(job.job);
  prefix += 'e';
  prefix += std::to_string(job.epoch);
  prefix += 'L';
  const auto stride = static_cast<std::size_t>(l.tp * l.dp);
  for (std::size_t r = 0; r < n; ++r) {
    st->forward_in.push_back(sg4::Mailbox::by_name(prefix + "f" + std::to_string(r)));
    st->backward_in.push_back(sg4::Mailbox::by_name(prefix + "b" + std::to_string(r)));
    st->dp_in.push_back(sg4::Mailbox::by_name(prefix + "d" + std::to_string(r)));
    if (r + stride < n) {
      st->pp_latency_s = std::max({st->pp_latency_s, route_latency(job.ranks[r], job.ranks[r + stride]),
                                   route_latency(job.ranks[r + stride], job.ranks[r])});
      add_route_links(st->net.links, job.ranks[r], job.ranks[r + stride]);
      add_route_links(st->net.links, job.ranks[r + stride], job.ranks[r]);
    }
  }
  if (l.dp > 1)
    for (int p = 0; p < l.pp; ++p)
      for (int d = 0; d < l.dp; ++d)
        for (int t = 0; t < l.tp; ++t) {
          const auto a = static_cast<std::size_t>(t + l.tp * (d + l.dp * p));
          const auto b = static_cast<std::size_t>(t + l.tp * ((d + 1) % l.dp + l.dp * p));
          st->dp_latency_s = std::max(st->dp_latency_s, route_latency(job.ranks[a], job.ranks[b]));
          add_route_links(st->net.links, job.ranks[a], job.ranks[b]);
        }
  st->ranks_running = n;
  st->done.assign(n, 0);
  st->in_flight.assign(n, 0);
  st->boundary_s.assign(n, sg4::Engine::get_clock());
  st->group.finished.assign(n, 0);
  st->group.comms.resize(n);
  st->job = std::move(job);
  register_link_user(st->net);
  for (std::size_t r = 0; r < n; ++r)
    st->group.actors.push_back(sg4::Actor::create(prefix + std::to_string(r), st->job.ranks[r], [st, r] {
                                 try {
                                   run_rank(*st, r);
                                 } catch (const simgrid::NetworkFailureException&) {
                                   // A stopped job's peers die mid-comm; only then is it expected.
                                   if (!st->group.stopped) throw;
                                   return;
                                 }
                                 st->group.finished[r] = 1;
                                 if (--st->ranks_running == 0 && !st->group.stopped) {
                                   unregister_link_user(st->net);
                                   st->channel->report(st->job.job, st->job.epoch);
                                 }
                               }).get());
  return st;
}

}  // namespace vnsim::sim
