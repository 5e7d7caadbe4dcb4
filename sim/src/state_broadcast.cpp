#include "state_broadcast.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <stdexcept>
#include <string>

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {

void launch_state_broadcast(StateBroadcast broadcast, std::shared_ptr<CompletionChannel> channel) {
  if (broadcast.flows.empty())
    throw std::logic_error("state broadcast of job " + std::to_string(broadcast.job) + " has no receiver");
  sg4::Host* where = broadcast.flows.front().first;
  std::string name = "resize-j";
  name += std::to_string(broadcast.job);
  name += 'e';
  name += std::to_string(broadcast.epoch);
  sg4::Actor::create(name, where, [b = std::move(broadcast), channel = std::move(channel)] {
    if (b.setup_s > 0) sg4::this_actor::sleep_for(b.setup_s);
    std::vector<sg4::CommPtr> comms;
    comms.reserve(b.flows.size());
    const auto bytes = static_cast<uint64_t>(b.bytes_per_receiver + 0.5);
    for (const auto& [from, to] : b.flows) comms.push_back(sg4::Comm::sendto_async(from, to, bytes));
    for (const auto& c : comms) c->wait();
    channel->report(b.job, b.epoch);
  });
}

}  // namespace vnsim::sim
