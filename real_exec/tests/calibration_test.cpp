#include "vnsim/real_exec/calibration.hpp"

#include <gtest/gtest.h>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim::real_exec {
namespace {

TEST(Calibration, FitLineRecoversAnExactLine) {
  // y = 0.02 + 0.001 x at x = 10, 20, 40.
  const LineFit f = fit_line({{10, 0.03}, {20, 0.04}, {40, 0.06}});
  EXPECT_NEAR(f.intercept, 0.02, 1e-12);
  EXPECT_NEAR(f.slope, 0.001, 1e-12);
  EXPECT_NEAR(f.rmse, 0, 1e-12);
}

TEST(Calibration, FitLineNeverReturnsANegativeIntercept) {
  // Through (1, 1) and (2, 3) the line is y = -1 + 2x; refitted through 0:
  // slope = (1*1 + 2*3) / (1 + 4) = 1.4.
  const LineFit f = fit_line({{1, 1}, {2, 3}});
  EXPECT_EQ(f.intercept, 0);
  EXPECT_NEAR(f.slope, 1.4, 1e-12);
}

TEST(Calibration, RingBandwidthFitInvertsTheRingFormula) {
  // 3 ranks, hop latency 10 us, bandwidth 2 GB/s: T = 4 (1e-5 + B/3/2e9).
  const auto t = [](double b) { return 4 * (1e-5 + b / 3 / 2e9); };
  EXPECT_NEAR(fit_ring_bandwidth({{3e6, t(3e6)}, {6e6, t(6e6)}}, 3, 1e-5), 2e9, 1);
}

TEST(Calibration, TestbedSpecParsesAndPricesARingAsMeasured) {
  TestbedLinks links;
  links.workers = 3;
  links.link_bandwidth_Bps = 2e9;
  links.link_latency_s = 5e-6;
  const Cluster cluster(parse_cluster_spec(testbed_cluster_spec_json(links, "T4", "test"), "calibrated"));
  ASSERT_EQ(cluster.gpu_count(), 3);
  const Topology topo(cluster);
  // A worker-to-worker hop crosses two links: latency 10 us, bandwidth 2 GB/s;
  // so the ring time equals the formula fit_ring_bandwidth inverts.
  const double bytes = 3e6;
  EXPECT_NEAR(ring_allreduce_time_s(topo, {0, 1, 2}, bytes), 4 * (1e-5 + bytes / 3 / 2e9), 1e-9);
}

TEST(Calibration, ModelProfileParsesAsAModelCatalog) {
  CalibratedModel m;
  m.base = ModelCatalog::builtin().at("cifar10");
  m.compute = LineFit{0.01, 0.0002, 0.001};
  m.points = 4;
  m.gradient_bytes = 44680;
  const ModelCatalog cat = ModelCatalog::parse(model_profile_json({m}, "T4"), "profile");
  const ModelParams& p = cat.at("cifar10");
  EXPECT_DOUBLE_EQ(p.alpha_compute_s, 0.01);
  EXPECT_DOUBLE_EQ(p.beta_compute_s, 0.0002);
  EXPECT_DOUBLE_EQ(p.gradient_bytes, 44680);
  EXPECT_EQ(p.default_local_batch, m.base.default_local_batch);
}

}  // namespace
}  // namespace vnsim::real_exec
