#include "ps_job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <stdexcept>
#include <string>

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

long long g_bye = 0;  // an asynchronous worker's last message to its handlers: its address is the signal
long long* g_sink = nullptr;  // where received payloads land when only their size matters

class PsState : public FlowJob {
 public:
  PsSimJob job;
  std::shared_ptr<CompletionChannel> channel;
  std::unique_ptr<MacroPlan> plan;  // synchronous: k of each macro-iteration
  LinkUser net;                     // worker-server routes, both ways
  // push[s][w]: worker w -> server s; pull[s][w]: server s -> worker w.
  std::vector<std::vector<sg4::Mailbox*>> push, pull;
  double latency_s = 0;  // largest worker-server route latency
  ActorGroup group;
  std::size_t workers_running = 0;
  std::vector<long long> done;       // per worker (synchronous: steps; asynchronous: updates pushed)
  std::vector<long long> in_flight;  // per worker, the k being pushed (the payload handlers read)
  std::vector<double> boundary_s;    // per worker, end of its last macro-iteration
  long long claimed = 0;             // asynchronous: updates handed out to workers

  long long iterations_done(double now_s) const override {
    if (job.async) {
      long long whole = 0;
      for (long long d : done) whole += d;
      const double last = *std::max_element(boundary_s.begin(), boundary_s.end());
      return whole + credit(now_s - last, claimed - whole);
    }
    const auto slowest = std::min_element(done.begin(), done.end());
    const auto w = static_cast<std::size_t>(slowest - done.begin());
    return *slowest + credit(now_s - boundary_s[w], in_flight[w]);
  }

  void stop() override {
    unregister_link_user(net);
    group.kill_unfinished();
  }

  bool release_if_quiescent() override { return group.release_if_quiescent(); }

  double bytes(long long k) const {
    return static_cast<double>(k) * job.gradient_bytes / static_cast<double>(job.servers.size());
  }

  // Whole idle-network iterations that fit in `since_s`, short of the
  // `in_flight` being done (as ring_iterations_done).
  long long credit(double since_s, long long in_flight_now) const {
    if (in_flight_now <= 1 || !(job.iteration_s > 0)) return 0;
    const auto partial = static_cast<long long>(std::floor(std::max(0.0, since_s) / job.iteration_s));
    return std::min(partial, in_flight_now - 1);
  }
};

void put_all(PsState& st, std::size_t actor, const std::vector<sg4::Mailbox*>& boxes, long long* payload,
             double size) {
  for (sg4::Mailbox* box : boxes)
    st.group.comms[actor].push_back(box->put_async(payload, static_cast<std::uint64_t>(size + 0.5)));
}

// One macro-iteration of worker w (k steps): compute, push to every server,
// pull from every server, then the latencies the merged comms did not pay.
void worker_macro(PsState& st, std::size_t actor, std::size_t w, long long k,
                  const std::vector<sg4::Mailbox*>& to_servers,
                  const std::vector<sg4::Mailbox*>& from_servers) {
  sg4::this_actor::execute(static_cast<double>(k) * st.job.worker_flops[w]);
  auto& comms = st.group.comms[actor];
  comms.clear();
  st.in_flight[w] = k;
  put_all(st, actor, to_servers, &st.in_flight[w], st.bytes(k));
  sg4::Comm::wait_all(comms);
  comms.clear();
  for (sg4::Mailbox* box : from_servers) comms.push_back(box->get_async<long long>(&g_sink));
  sg4::Comm::wait_all(comms);
  comms.clear();
  const double latency_left = 2.0 * static_cast<double>(k - 1) * st.latency_s;
  if (latency_left > 0) sg4::this_actor::sleep_for(latency_left);
  st.done[w] += k;
  st.boundary_s[w] = sg4::Engine::get_clock();
}

void run_worker(PsState& st, std::size_t actor, std::size_t w) {
  std::vector<sg4::Mailbox*> to_servers, from_servers;
  for (std::size_t s = 0; s < st.job.servers.size(); ++s) {
    to_servers.push_back(st.push[s][w]);
    from_servers.push_back(st.pull[s][w]);
  }
  if (!st.job.async) {
    for (std::size_t i = 0;; ++i) {
      const long long k = st.plan->size(i, st.net.contended);
      if (k == 0) break;
      worker_macro(st, actor, w, k, to_servers, from_servers);
    }
  } else {
    // Asynchronous workers drift apart in a real run; starting them spread
    // over one macro-iteration's compute keeps identical workers from
    // pushing in lockstep, which the model (fluid sharing) does not assume.
    const double first = static_cast<double>(std::min(st.job.iterations_per_macro, st.job.iterations));
    const double offset =
        first * st.job.worker_flops[w] * static_cast<double>(w) / static_cast<double>(st.job.workers.size());
    if (offset > 0) sg4::this_actor::execute(offset);
    st.boundary_s[w] = sg4::Engine::get_clock();
    while (st.claimed < st.job.iterations) {
      const long long k_max =
          st.net.contended ? st.job.iterations_per_macro_contended : st.job.iterations_per_macro;
      const long long k = std::min(k_max, st.job.iterations - st.claimed);
      st.claimed += k;
      worker_macro(st, actor, w, k, to_servers, from_servers);
    }
  }
  if (--st.workers_running == 0 && !st.group.stopped) {
    unregister_link_user(st.net);
    st.channel->report(st.job.job, st.job.epoch);
  }
  if (st.job.async) {
    put_all(st, actor, to_servers, &g_bye, 0);
    sg4::Comm::wait_all(st.group.comms[actor]);
    st.group.comms[actor].clear();
  }
}

// Synchronous server s: every worker's push, then every worker's pull.
void run_sync_server(PsState& st, std::size_t actor, std::size_t s) {
  auto& comms = st.group.comms[actor];
  for (std::size_t i = 0;; ++i) {
    const long long k = st.plan->size(i, st.net.contended);
    if (k == 0) break;
    comms.clear();
    for (sg4::Mailbox* box : st.push[s]) comms.push_back(box->get_async<long long>(&g_sink));
    sg4::Comm::wait_all(comms);
    comms.clear();
    for (sg4::Mailbox* box : st.pull[s])
      comms.push_back(box->put_async(&g_bye, static_cast<std::uint64_t>(st.bytes(k) + 0.5)));
    sg4::Comm::wait_all(comms);
  }
  comms.clear();
}

// Asynchronous server s, the handler of worker w: answers each push at once.
void run_async_handler(PsState& st, std::size_t actor, std::size_t s, std::size_t w) {
  auto& comms = st.group.comms[actor];
  while (true) {
    const long long* k = st.push[s][w]->get<long long>();
    if (k == &g_bye) return;
    comms.clear();
    comms.push_back(st.pull[s][w]->put_async(&g_bye, static_cast<std::uint64_t>(st.bytes(*k) + 0.5)));
    comms.back()->wait();
    comms.clear();
  }
}

double max_latency(const PsSimJob& job) {
  double worst = 0;
  std::vector<sg4::Link*> links;
  for (sg4::Host* w : job.workers)
    for (sg4::Host* s : job.servers) {
      for (auto [a, b] : {std::pair{w, s}, std::pair{s, w}}) {
        double latency = 0;  // route_to adds to it
        links.clear();
        a->route_to(b, links, &latency);
        worst = std::max(worst, latency);
      }
    }
  return worst;
}

template <class Body>
void spawn(const std::shared_ptr<PsState>& st, const std::string& name, sg4::Host* host, Body body) {
  // Vectors sized before the first actor is created: a new actor may run
  // (and index them) before Actor::create returns.
  const std::size_t actor = st->group.actors.size();
  st->group.actors.push_back(sg4::Actor::create(name, host, [st, actor, body] {
                               try {
                                 body(*st, actor);
                               } catch (const simgrid::NetworkFailureException&) {
                                 // A stopped job's peers die mid-comm; only then is it expected.
                                 if (!st->group.stopped) throw;
                                 return;
                               }
                               st->group.finished[actor] = 1;
                             }).get());
}

}  // namespace

std::shared_ptr<FlowJob> launch_ps_job(PsSimJob job, std::shared_ptr<CompletionChannel> channel) {
  const std::size_t servers = job.servers.size();
  const std::size_t workers = job.workers.size();
  if (servers == 0 || workers == 0 || job.worker_flops.size() != workers)
    throw std::logic_error("parameter-server job " + std::to_string(job.job) +
                           " needs a server and one compute per worker");
  auto st = std::make_shared<PsState>();
  st->latency_s = max_latency(job);
  st->channel = std::move(channel);
  st->plan = std::make_unique<MacroPlan>(job.iterations, job.iterations_per_macro,
                                         job.iterations_per_macro_contended);
  for (sg4::Host* w : job.workers)
    for (sg4::Host* s : job.servers) {
      add_route_links(st->net.links, w, s);
      add_route_links(st->net.links, s, w);
    }
  std::string prefix = "j";  // built with += : GCC 12 -Wrestrict misfires on "literal" + std::string&&
  prefix += std::to_string(job.job);
  prefix += 'e';
  prefix += std::to_string(job.epoch);
  prefix += "ps";
  st->push.assign(servers, {});
  st->pull.assign(servers, {});
  for (std::size_t s = 0; s < servers; ++s)
    for (std::size_t w = 0; w < workers; ++w) {
      const std::string pair = std::to_string(s) + "." + std::to_string(w);
      st->push[s].push_back(sg4::Mailbox::by_name(prefix + "u" + pair));
      st->pull[s].push_back(sg4::Mailbox::by_name(prefix + "d" + pair));
    }
  st->workers_running = workers;
  st->done.assign(workers, 0);
  st->in_flight.assign(workers, 0);
  st->boundary_s.assign(workers, sg4::Engine::get_clock());
  st->job = std::move(job);
  register_link_user(st->net);
  const std::size_t actors = workers + servers * (st->job.async ? workers : 1);
  st->group.finished.assign(actors, 0);
  st->group.comms.resize(actors);
  for (std::size_t s = 0; s < servers; ++s) {
    if (!st->job.async) {
      spawn(st, prefix + "s" + std::to_string(s), st->job.servers[s],
            [s](PsState& state, std::size_t actor) { run_sync_server(state, actor, s); });
      continue;
    }
    for (std::size_t w = 0; w < workers; ++w)
      spawn(st, prefix + "s" + std::to_string(s) + "." + std::to_string(w), st->job.servers[s],
            [s, w](PsState& state, std::size_t actor) { run_async_handler(state, actor, s, w); });
  }
  for (std::size_t w = 0; w < workers; ++w)
    spawn(st, prefix + "w" + std::to_string(w), st->job.workers[w],
          [w](PsState& state, std::size_t actor) { run_worker(state, actor, w); });
  return st;
}

}  // namespace vnsim::sim
