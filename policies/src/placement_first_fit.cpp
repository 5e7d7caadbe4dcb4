#include "placement_strategies.hpp"

namespace vnsim {
namespace {

class FirstFitPlacement : public PlacementStrategy {
 public:
  std::string name() const override { return "first-fit"; }
  std::optional<std::vector<GpuId>> place(const FreeGpus& free, int count, GpuTypeMask allowed) override {
    if (count <= 0 || count > free.total()) return std::nullopt;
    const Cluster& cluster = free.cluster();
    std::vector<GpuId> out;
    for (GpuId g = 0; g < cluster.gpu_count() && static_cast<int>(out.size()) < count; ++g)
      if ((cluster.gpu_type_bit(g) & allowed) != 0 && free.is_free(g)) out.push_back(g);
    if (static_cast<int>(out.size()) < count) return std::nullopt;
    return out;
  }
};

}  // namespace

std::unique_ptr<PlacementStrategy> make_first_fit_placement() {
  return std::make_unique<FirstFitPlacement>();
}

}  // namespace vnsim
