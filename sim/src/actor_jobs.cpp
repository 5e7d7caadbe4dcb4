#include "actor_jobs.hpp"

namespace vnsim::sim {

void ActorJobs::release_quiescent() {
  std::erase_if(stopped_rings_, [](const auto& r) { return release_ring_if_quiescent(*r); });
  std::erase_if(stopped_flows_, [](const auto& f) { return f->release_if_quiescent(); });
}

}  // namespace vnsim::sim
