#include "vnsim/real_exec/gradient_noise.hpp"

#include <gtest/gtest.h>

#include "vnsim/core/goodput.hpp"
#include "vnsim/real_exec/gradient_model.hpp"

namespace vnsim::real_exec {
namespace {

TEST(GradientNoise, EstimatorByHand) {
  // Samples 0 and 1 have gradients 1 and 3. Small batches of 1: mean
  // squared norm (1 + 9) / 2 = 5; the big batch of 2 has mean 2, norm^2 4.
  // |G|^2 = (2 x 4 - 1 x 5) / (2 - 1) = 3; tr(Sigma) = (5 - 4) / (1 - 1/2) = 2.
  const auto summed = [](long long first, long long count) {
    double s = 0;
    for (long long i = first; i < first + count; ++i) s += i == 0 ? 1 : 3;
    return std::vector<double>{s};
  };
  const GradientNoise n = measure_gradient_noise(summed, 1, 2, 1);
  EXPECT_DOUBLE_EQ(n.grad_sqr, 3);
  EXPECT_DOUBLE_EQ(n.trace_sigma, 2);
  EXPECT_DOUBLE_EQ(n.noise_scale(), 2.0 / 3.0);
  EXPECT_THROW(measure_gradient_noise(summed, 2, 3, 1), std::invalid_argument);
}

TEST(GradientNoise, TheSyntheticProblemMeasuresItsAnalyticNoiseScale) {
  // tr(Sigma) = 10 per entry, |G|^2 = 1 per kSignalStride entries: phi =
  // 10 x kSignalStride samples (gradient_model.hpp).
  const std::size_t entries = kSignalStride * 50;
  const auto summed = [&](long long first, long long count) {
    std::vector<double> g(entries, 0.0);
    accumulate_samples(g, first, count);
    return g;
  };
  const GradientNoise n = measure_gradient_noise(summed, 64, 2048, 8);
  EXPECT_NEAR(n.trace_sigma / static_cast<double>(entries), 10.0, 1.0);
  EXPECT_NEAR(n.noise_scale(), 10.0 * kSignalStride, 0.15 * 10.0 * kSignalStride);
}

TEST(GradientNoise, ProfileJsonParsesAsANoiseCatalog) {
  MeasuredNoise m;
  m.model = ModelCatalog::builtin().at("cifar10");
  m.noise.grad_sqr = 2;
  m.noise.trace_sigma = 1280;
  const NoiseScaleCatalog c = NoiseScaleCatalog::parse(noise_profile_json({m}), "noise.json");
  const NoiseScaleProfile* p = c.find("cifar10");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->phi_at(0), 640);
  EXPECT_DOUBLE_EQ(p->phi_at(1e9), 640);
  EXPECT_EQ(p->initial_batch, m.model.initial_batch);
}

}  // namespace
}  // namespace vnsim::real_exec
