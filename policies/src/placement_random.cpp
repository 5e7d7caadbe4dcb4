#include <algorithm>
#include <random>

#include "placement_strategies.hpp"

namespace vnsim {
namespace {

// Draws from one generator seeded once, so a run's placements depend only on
// the seed and the sequence of requests (deterministic).
class RandomPlacement : public PlacementStrategy {
 public:
  explicit RandomPlacement(std::uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  std::optional<std::vector<GpuId>> place(const FreeGpus& free, int count, GpuTypeMask allowed) override {
    if (count <= 0 || count > free.total()) return std::nullopt;
    const Cluster& cluster = free.cluster();
    std::vector<GpuId> pool;
    for (GpuId g = 0; g < cluster.gpu_count(); ++g)
      if ((cluster.gpu_type_bit(g) & allowed) != 0 && free.is_free(g)) pool.push_back(g);
    if (static_cast<int>(pool.size()) < count) return std::nullopt;
    // Partial Fisher-Yates with explicit index draws: std::shuffle and
    // uniform_int_distribution are not specified bit for bit across
    // standard libraries, this is.
    for (int i = 0; i < count; ++i) {
      const auto left = static_cast<std::uint64_t>(pool.size() - static_cast<std::size_t>(i));
      const auto j = static_cast<std::size_t>(i) + static_cast<std::size_t>(rng_() % left);
      std::swap(pool[static_cast<std::size_t>(i)], pool[j]);
    }
    pool.resize(static_cast<std::size_t>(count));
    std::sort(pool.begin(), pool.end());
    return pool;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<PlacementStrategy> make_random_placement(std::uint64_t seed) {
  return std::make_unique<RandomPlacement>(seed);
}

}  // namespace vnsim
