#include "placement_strategies.hpp"
#include "vnsim/core/consolidated_placement.hpp"

namespace vnsim {
namespace {

class ConsolidatedPlacement : public PlacementStrategy {
 public:
  std::string name() const override { return "consolidated"; }
  std::optional<std::vector<GpuId>> place(const FreeGpus& free, int count, GpuTypeMask allowed) override {
    if (count <= 0 || count > free.total()) return std::nullopt;
    return find_consolidated_gpus(
        free.cluster(), [&](NodeId n) { return free.on_node(n); }, count, allowed,
        [&](NodeId n) { return free.free_on_node(n); });
  }
};

}  // namespace

std::unique_ptr<PlacementStrategy> make_consolidated_placement() {
  return std::make_unique<ConsolidatedPlacement>();
}

}  // namespace vnsim
