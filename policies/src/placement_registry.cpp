#include "placement_strategies.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {

std::vector<std::string> placement_names() {
  return {"consolidated", "first-fit", "topology-aware", "random", "most-free"};
}

std::unique_ptr<PlacementStrategy> make_placement(const std::string& name, std::uint64_t seed) {
  if (name == "consolidated") return make_consolidated_placement();
  if (name == "first-fit") return make_first_fit_placement();
  if (name == "topology-aware") return make_topology_aware_placement();
  if (name == "random") return make_random_placement(seed);
  if (name == "most-free") return make_most_free_placement();
  std::string valid;
  for (const auto& n : placement_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError("unknown placement '" + name + "'; valid placements: " + valid);
}

}  // namespace vnsim
