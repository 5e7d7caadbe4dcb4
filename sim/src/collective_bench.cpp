#include "vnsim/sim/collective_bench.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <string>

#include "network_config.hpp"
#include "platform.hpp"

namespace sg4 = simgrid::s4u;

namespace vnsim {
namespace {

struct RankPhase {
  std::vector<std::pair<sg4::Mailbox*, std::uint64_t>> sends;
  std::vector<sg4::Mailbox*> receives;
  long long repeat = 1;
};

// Per rank, what it sends and receives in each phase. One mailbox per
// (sender, receiver) pair: FIFO matching keeps successive phases apart, since
// a rank finishes a phase's comms before it posts the next phase's.
std::vector<std::vector<RankPhase>> rank_plans(const CollectiveSchedule& s, const std::string& prefix) {
  const std::size_t n = s.ranks.size();
  std::vector<std::vector<RankPhase>> plans(n);
  for (const Phase& phase : s.phases) {
    for (auto& plan : plans) plan.push_back(RankPhase{{}, {}, phase.repeat});
    for (const Flow& f : phase.flows) {
      sg4::Mailbox* box = sg4::Mailbox::by_name(prefix + std::to_string(f.src) + ">" + std::to_string(f.dst));
      plans[f.src].back().sends.emplace_back(box, static_cast<std::uint64_t>(f.bytes + 0.5));
      plans[f.dst].back().receives.push_back(box);
    }
  }
  return plans;
}

void run_rank(const std::vector<RankPhase>& plan) {
  static int token = 0;  // payload is irrelevant; only the simulated size matters
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> received;
  for (const RankPhase& phase : plan) {
    if (phase.sends.empty() && phase.receives.empty()) continue;
    received.assign(phase.receives.size(), nullptr);
    for (long long rep = 0; rep < phase.repeat; ++rep) {
      comms.clear();
      for (const auto& [box, size] : phase.sends) comms.push_back(box->put_async(&token, size));
      for (std::size_t i = 0; i < phase.receives.size(); ++i)
        comms.push_back(phase.receives[i]->get_async<int>(&received[i]));
      sg4::Comm::wait_all(comms);
    }
  }
}

}  // namespace

std::vector<std::vector<double>> simulate_collective_batches(
    const Cluster& cluster, const GpuCatalog& gpu_catalog,
    const std::vector<std::vector<CollectiveSchedule>>& batches) {
  sg4::Engine& engine = sim::create_configured_engine();
  const Topology topology(cluster);
  const sim::Platform platform = sim::build_platform(topology, gpu_catalog);
  std::vector<std::vector<double>> durations(batches.size());
  std::exception_ptr failure;

  sg4::Actor::create("bench-driver", platform.gpu_hosts.at(0), [&] {
    try {
      for (std::size_t b = 0; b < batches.size(); ++b) {
        const double start = sg4::Engine::get_clock();
        auto finish = std::make_shared<std::vector<double>>(batches[b].size(), start);
        std::vector<sg4::ActorPtr> actors;
        for (std::size_t i = 0; i < batches[b].size(); ++i) {
          const CollectiveSchedule& s = batches[b][i];
          // Built with append: GCC 12 warns falsely (-Wrestrict) on "b" + to_string(...).
          std::string prefix = "b";
          prefix.append(std::to_string(b)).append("c").append(std::to_string(i)).append(":");
          auto plans = std::make_shared<std::vector<std::vector<RankPhase>>>(rank_plans(s, prefix));
          for (std::size_t r = 0; r < s.ranks.size(); ++r)
            actors.push_back(sg4::Actor::create(std::string(prefix).append("r").append(std::to_string(r)),
                                                platform.gpu_hosts.at(s.ranks[r]), [plans, finish, i, r] {
                                                  run_rank((*plans)[r]);
                                                  (*finish)[i] =
                                                      std::max((*finish)[i], sg4::Engine::get_clock());
                                                }));
        }
        for (const auto& actor : actors) actor->join();
        for (double f : *finish) durations[b].push_back(f - start);
      }
    } catch (...) {
      failure = std::current_exception();
      sg4::Actor::kill_all();
    }
  });
  engine.run();
  if (failure) std::rethrow_exception(failure);
  return durations;
}

}  // namespace vnsim
