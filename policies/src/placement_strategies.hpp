#pragma once
// Factories of the built-in placement strategies (one file each).
#include <cstdint>
#include <memory>

#include "vnsim/policies/placement.hpp"

namespace vnsim {

std::unique_ptr<PlacementStrategy> make_first_fit_placement();
std::unique_ptr<PlacementStrategy> make_consolidated_placement();
std::unique_ptr<PlacementStrategy> make_topology_aware_placement();
std::unique_ptr<PlacementStrategy> make_random_placement(std::uint64_t seed);
std::unique_ptr<PlacementStrategy> make_most_free_placement();

}  // namespace vnsim
