// Heterogeneous split against hand-computed answers and against brute force
// over every per-GPU assignment on small examples.
#include "vnsim/core/hetero_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace vnsim {
namespace {

// "fast": 0.1 + 0.01 m seconds per micro-batch of m samples; "slow" takes
// twice as long for the same micro-batch.
GpuTypeGroup fast(int gpus, int cap = 0) {
  return {"fast", gpus, [](double m) { return 0.1 + 0.01 * m; }, cap};
}
GpuTypeGroup slow(int gpus, int cap = 0) {
  return {"slow", gpus, [](double m) { return 0.2 + 0.02 * m; }, cap};
}

std::vector<int> units(const HeteroSplit& s, bool virtual_nodes) {
  std::vector<int> out;
  for (const GpuShare& g : s.gpus) out.push_back(virtual_nodes ? g.virtual_nodes : g.local_batch);
  return out;
}

// Smallest bottleneck over every way of giving each GPU >= 1 unit, `total`
// units in all: recursion over compositions.
double brute_force(const std::vector<std::function<double(int)>>& gpu_time, int total) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<int> held(gpu_time.size(), 1);
  std::function<void(std::size_t, int)> go = [&](std::size_t i, int left) {
    if (i + 1 == gpu_time.size()) {
      held[i] = left;
      double worst = 0;
      for (std::size_t k = 0; k < held.size(); ++k) worst = std::max(worst, gpu_time[k](held[k]));
      best = std::min(best, worst);
      return;
    }
    const int others = static_cast<int>(gpu_time.size() - i - 1);
    for (int n = 1; n <= left - others; ++n) {
      held[i] = n;
      go(i + 1, left - n);
    }
  };
  go(0, total);
  return best;
}

// Hand computation: V = 8, B = 80, so 10 samples per virtual node: 0.2 s on
// the fast GPU and 0.4 s on each slow one. Balanced: fast 4 VNs (0.8 s),
// slow 2 + 2 (0.8 s). The even spread 3/3/2 would pay 3 x 0.4 = 1.2 s on a
// slow GPU. With a 0.1 s collective: 0.9 s.
TEST(HeteroSplit, VirtualNodesFollowSpeed) {
  const HeteroSplit s = split_virtual_nodes({fast(1), slow(2)}, 8, 80, 0.1);
  EXPECT_EQ(units(s, true), (std::vector<int>{4, 2, 2}));
  EXPECT_NEAR(s.compute_s, 0.8, 1e-12);
  EXPECT_NEAR(s.total_s, 0.9, 1e-12);
  EXPECT_NEAR(s.gpus[0].gradient_weight, 0.5, 1e-12);
  EXPECT_NEAR(s.gpus[1].gradient_weight, 0.25, 1e-12);
  EXPECT_EQ(s.gpus[0].local_batch, 40);
  EXPECT_EQ(s.min_units_per_group, (std::vector<int>{4, 2}));
  EXPECT_EQ(s.max_units_per_group, (std::vector<int>{4, 2}));
}

// Hand computation: b_f + 2 b_s = 80 and 0.1 + 0.01 b_f = 0.2 + 0.02 b_s give
// b_s = 17.5. Integer neighbours: (46, 17, 17) -> fast 0.56 s; (44, 18, 18)
// -> slow 0.56 s; (45, 17, 18) -> 0.55 / 0.54 / 0.56. The optimum is 0.56 s.
TEST(HeteroSplit, BatchEqualisesStepTimes) {
  const HeteroSplit s = split_batch({fast(1), slow(2)}, 80, 0.0);
  EXPECT_NEAR(s.compute_s, 0.56, 1e-12);
  const std::vector<int> b = units(s, false);
  EXPECT_EQ(std::accumulate(b.begin(), b.end(), 0), 80);
  double weights = 0;
  for (const GpuShare& g : s.gpus) weights += g.gradient_weight;
  EXPECT_NEAR(weights, 1.0, 1e-12);
}

// A micro-batch cap of 8 on the slow type: 9..16 samples take two
// micro-batches. batch_step_s(slow, 12) = 2 x (0.2 + 0.02 x 6) = 0.64 s.
TEST(HeteroSplit, CapSplitsIntoMicroBatches) {
  EXPECT_NEAR(batch_step_s(slow(1, 8), 12), 0.64, 1e-12);
  EXPECT_NEAR(batch_step_s(slow(1, 8), 8), 0.36, 1e-12);
  const HeteroSplit s = split_batch({slow(1, 8)}, 12, 0.0);
  EXPECT_EQ(s.gpus[0].micro_batches, 2);
}

TEST(HeteroSplit, VirtualNodesMatchBruteForce) {
  // Three types, one with a non-linear profile, odd V and B.
  const GpuTypeGroup odd{"odd", 2, [](double m) { return 0.05 + 0.003 * m * m; }, 0};
  const std::vector<GpuTypeGroup> groups{fast(1), slow(2), odd};
  for (int v : {5, 7, 9, 11, 12}) {
    const int batch = 3 * v + 1;
    std::vector<std::function<double(int)>> per_gpu;
    for (const GpuTypeGroup& g : groups)
      for (int k = 0; k < g.gpus; ++k) {
        const double per_vn = g.micro_batch_s(static_cast<double>(batch) / v);
        per_gpu.push_back([per_vn](int n) { return n * per_vn; });
      }
    const HeteroSplit s = split_virtual_nodes(groups, v, batch, 0.0);
    EXPECT_NEAR(s.compute_s, brute_force(per_gpu, v), 1e-12) << "V=" << v;
    const std::vector<int> vn = units(s, true);
    EXPECT_EQ(std::accumulate(vn.begin(), vn.end(), 0), v);
  }
}

TEST(HeteroSplit, BatchMatchesBruteForce) {
  // With caps, so the per-GPU time jumps where a micro-batch is added.
  const GpuTypeGroup odd{"odd", 1, [](double m) { return 0.05 + 0.003 * m * m; }, 3};
  const std::vector<GpuTypeGroup> groups{fast(1, 5), slow(2, 4), odd};
  for (int batch : {4, 9, 13, 20, 26}) {
    std::vector<std::function<double(int)>> per_gpu;
    for (const GpuTypeGroup& g : groups)
      for (int k = 0; k < g.gpus; ++k)
        per_gpu.push_back([g](int b) {
          double worst = 0;  // the documented monotone rounding
          for (int x = 1; x <= b; ++x) worst = std::max(worst, batch_step_s(g, x));
          return worst;
        });
    const HeteroSplit s = split_batch(groups, batch, 0.0);
    EXPECT_NEAR(s.compute_s, brute_force(per_gpu, batch), 1e-12) << "B=" << batch;
  }
}

TEST(HeteroSplit, RejectsImpossibleInput) {
  EXPECT_THROW(split_virtual_nodes({fast(2), slow(2)}, 3, 30, 0.0), std::invalid_argument);
  EXPECT_THROW(split_batch({fast(2), slow(2)}, 3, 0.0), std::invalid_argument);
  EXPECT_THROW(split_batch({}, 3, 0.0), std::invalid_argument);
  EXPECT_THROW(split_batch({fast(1)}, 3, -1.0), std::invalid_argument);
}

}  // namespace
}  // namespace vnsim
