#include "vnsim/real_exec/calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>

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

TEST(Calibration, RingFitKeepsAPlausibleLatencyAndCutsAContradictedOne) {
  // As above: the measured 10 us latency leaves transfer time, so it stays.
  const auto t = [](double b) { return 4 * (1e-5 + b / 3 / 2e9); };
  const RingFit kept = fit_ring({{3e6, t(3e6)}, {6e6, t(6e6)}}, 3, 1e-5);
  EXPECT_FALSE(kept.latency_reduced);
  EXPECT_EQ(kept.hop_latency_s, 1e-5);
  EXPECT_NEAR(kept.bandwidth_Bps, 2e9, 1);
  // A 1 ms ping-pong against steps of t/4 = 0.51 ms and 1.01 ms: no transfer
  // time is left (fit_ring_bandwidth throws). The latency becomes half the
  // shortest step, 0.255 ms; per step the transfer is then 0.255 ms for 1e6
  // bytes per rank and 0.755 ms for 2e6, and the least-squares bandwidth
  // through the origin is (1e12 + 4e12) / (1e6 x 0.255e-3 + 2e6 x 0.755e-3)
  // = 5e12 / 1765 = 2.833e9 B/s.
  EXPECT_THROW(fit_ring_bandwidth({{3e6, t(3e6)}, {6e6, t(6e6)}}, 3, 1e-3), std::runtime_error);
  const RingFit cut = fit_ring({{3e6, t(3e6)}, {6e6, t(6e6)}}, 3, 1e-3);
  EXPECT_TRUE(cut.latency_reduced);
  EXPECT_NEAR(cut.hop_latency_s, t(3e6) / 4 / 2, 1e-15);
  EXPECT_NEAR(cut.bandwidth_Bps, 5e12 / 1765.0, 1e3);
  // Only measurements of no time at all are still an error.
  EXPECT_THROW(fit_ring({{3e6, 0.0}}, 3, 1e-5), std::runtime_error);
}

// Workers on 2 GB/s links of 5 us each, as calibration writes them.
TestbedLinks testbed_links(int workers) {
  TestbedLinks links;
  links.workers = workers;
  links.link_bandwidth_Bps = 2e9;
  links.link_latency_s = 5e-6;
  return links;
}

Cluster calibrated_cluster(const TestbedLinks& links) {
  return Cluster(parse_cluster_spec(testbed_cluster_spec_json(links, "T4", "test"), "calibrated"));
}

TEST(Calibration, TestbedSpecParsesAndPricesARingAsMeasured) {
  const Cluster cluster = calibrated_cluster(testbed_links(3));
  ASSERT_EQ(cluster.gpu_count(), 3);
  const Topology topo(cluster);
  // A worker-to-worker hop crosses two links: latency 10 us, bandwidth 2 GB/s;
  // so the ring time equals the formula fit_ring_bandwidth inverts.
  const double bytes = 3e6;
  EXPECT_NEAR(ring_allreduce_time_s(topo, {0, 1, 2}, bytes), 4 * (1e-5 + bytes / 3 / 2e9), 1e-9);
}

TEST(Calibration, AlphaBetaFitByHand) {
  // Exactly 2 us + 1 ns/byte at 8, 1000, 100000 B.
  const AlphaBeta f = fit_alpha_beta({{8, 2.008e-6}, {1000, 3e-6}, {100000, 102e-6}});
  EXPECT_NEAR(f.alpha_s, 2e-6, 1e-12);
  EXPECT_NEAR(f.beta_s_per_byte, 1e-9, 1e-15);
  EXPECT_NEAR(f.max_relative_error, 0, 1e-9);
  EXPECT_EQ(f.from_bytes, 8);
  EXPECT_EQ(f.to_bytes, 100000);
  // Weighted by 1/T^2 the small times count as much as the large: two
  // points at 1 us and 3 us at x = 0, the relative-error optimum is the
  // harmonic-like mean sum(w y) / sum(w) = (1 + 1/3) / (1 + 1/9) us = 1.2 us.
  const AlphaBeta c = fit_alpha_beta({{0, 1e-6}, {0, 3e-6}});
  EXPECT_NEAR(c.alpha_s, 1.2e-6, 1e-12);
  EXPECT_EQ(c.beta_s_per_byte, 0);
}

TEST(Calibration, AlphaBetaOverTheGradientsRangeIgnoresFarSizes) {
  // Latency-bound below 1 KB (5 us flat), copy-bound above (1 ns/byte): one
  // line fits neither; the fit over 4 KB..64 KB (sizes within 4x of it) is
  // the copy-bound line.
  std::vector<std::pair<double, double>> pts;
  for (double b : {8.0, 32.0, 128.0, 512.0}) pts.emplace_back(b, 5e-6);
  for (double b : {2048.0, 8192.0, 32768.0, 131072.0, 524288.0}) pts.emplace_back(b, 1e-6 + 1e-9 * b);
  const AlphaBeta all = fit_alpha_beta(pts);
  EXPECT_GT(all.max_relative_error, 0.3);
  const AlphaBeta used = fit_alpha_beta_over(pts, 4096, 65536);
  EXPECT_NEAR(used.alpha_s, 1e-6, 1e-12);
  EXPECT_NEAR(used.beta_s_per_byte, 1e-9, 1e-15);
  EXPECT_EQ(used.from_bytes, 2048);
  EXPECT_EQ(used.to_bytes, 131072);
  // With one size within 4x of the range, the two nearest (in log size) are
  // fitted: 1e6 and 1e9 around 2e5..3e5, not 8.
  const AlphaBeta nearest = fit_alpha_beta_over({{8, 1e-6}, {1e6, 1e-3}, {1e9, 1}}, 2e5, 3e5);
  EXPECT_EQ(nearest.from_bytes, 1e6);
  EXPECT_EQ(nearest.to_bytes, 1e9);
}

TEST(Calibration, TheSpecFromAnAlphaBetaFitPricesTheRingAsTheFit) {
  // What vnexec calibrate writes: links whose ring all-reduce over N
  // workers is alpha + beta B, for the simulator's ring model.
  AlphaBeta f;
  f.alpha_s = 4e-6;
  f.beta_s_per_byte = 2e-10;
  for (int n : {2, 3}) {
    const RingFit ring = ring_from_alpha_beta(f, n);
    TestbedLinks links;
    links.workers = n;
    links.link_bandwidth_Bps = ring.bandwidth_Bps;
    links.link_latency_s = ring.hop_latency_s / 2;
    const Cluster cluster(parse_cluster_spec(testbed_cluster_spec_json(links, "T4", "test"), "test"));
    const Topology topo(cluster);
    std::vector<GpuId> ring_gpus;
    for (int g = 0; g < n; ++g) ring_gpus.push_back(g);
    for (double bytes : {6408.0, 44680.0, 102240.0})
      EXPECT_NEAR(ring_allreduce_time_s(topo, ring_gpus, bytes), 4e-6 + 2e-10 * bytes, 1e-12) << n;
  }
}

TEST(Calibration, MeasuredCommunicatorSetupBecomesTheResizeAndRestartCost) {
  TestbedLinks links = testbed_links(2);
  const Cluster defaults = calibrated_cluster(links);
  EXPECT_DOUBLE_EQ(defaults.spec().elasticity.communicator_setup_s, ElasticitySpec{}.communicator_setup_s);
  links.communicator_setup_s = 0.004;
  const Cluster measured = calibrated_cluster(links);
  EXPECT_DOUBLE_EQ(measured.spec().elasticity.communicator_setup_s, 0.004);
  EXPECT_DOUBLE_EQ(measured.spec().elasticity.restart_delay_s, 0.004);
}

TEST(Calibration, ModelProfileParsesAsAModelCatalog) {
  CalibratedModel m;
  m.base = ModelCatalog::builtin().at("cifar10");
  m.compute = LineFit{0.01, 0.0002, 0.001};
  m.points = 4;
  m.gradient_bytes = 44680;
  m.start_charge_s = 0.028;
  const ModelCatalog cat = ModelCatalog::parse(model_profile_json({m}, "T4"), "profile");
  const ModelParams& p = cat.at("cifar10");
  // The measured start reaches the simulator as the model's start charge.
  ASSERT_TRUE(p.start_charge_s.has_value());
  EXPECT_DOUBLE_EQ(*p.start_charge_s, 0.028);
  EXPECT_DOUBLE_EQ(p.alpha_compute_s, 0.01);
  EXPECT_DOUBLE_EQ(p.beta_compute_s, 0.0002);
  EXPECT_DOUBLE_EQ(p.gradient_bytes, 44680);
  EXPECT_EQ(p.default_local_batch, m.base.default_local_batch);
}

TEST(Calibration, RoundsSpanHalfASecondAtLeastAndTheRepetitionsAlways) {
  EXPECT_EQ(calibration_rounds(15, 0.05), 15);     // 15 rounds of 50 ms: 0.75 s
  EXPECT_EQ(calibration_rounds(15, 0.0036), 139);  // ncf's 6 points: 3.6 ms a round
  EXPECT_EQ(calibration_rounds(15, 1e-9), kMaxCalibrationRounds);
  EXPECT_EQ(calibration_rounds(15, 0), 15);  // an untimed round: the repetitions
  EXPECT_EQ(calibration_rounds(0, 1.0), 1);
}

TEST(Calibration, AStallOfTheMachineCostsEachPointOneSampleNotAWholePoint) {
  // Six points of 1, 2, ..., 6 ms, 15 rounds; a stall makes 15 calls in a
  // row 2.6x slower. Timed point after point it took a whole point (ncf at
  // 64 samples, docs/VALIDATION.md); interleaved, each point loses at most
  // 3 of its 15 samples, and the medians are the true times.
  int call = 0;
  std::vector<std::function<double()>> steps;
  for (int p = 1; p <= 6; ++p)
    steps.emplace_back([&call, p] {
      const bool stalled = call >= 20 && call < 35;
      ++call;
      return p * 1e-3 * (stalled ? 2.6 : 1.0);
    });
  const std::vector<double> medians = interleaved_medians(15, steps);
  ASSERT_EQ(medians.size(), 6u);
  for (int p = 1; p <= 6; ++p) EXPECT_DOUBLE_EQ(medians[p - 1], p * 1e-3);
  EXPECT_EQ(call, 90);
}

TEST(Calibration, StepExtrasAreTheMedianOverheadAndARobustSpread) {
  // Two members computing 1 ms +- d, d = 10 us in 5 steps and 30 us in 4;
  // every step 40 us longer than slowest compute + span, but one step
  // descheduled by 5 ms, which a median ignores.
  std::vector<StepSample> steps;
  for (int s = 0; s < 9; ++s) {
    const double d = s % 2 ? 30e-6 : 10e-6;
    StepSample x;
    x.member_compute_s = {1e-3 + d, 1e-3 - d};
    x.slowest_compute_s = 1e-3 + d;
    x.allreduce_span_s = 20e-6;
    x.seconds = x.slowest_compute_s + x.allreduce_span_s + 40e-6 + (s == 4 ? 5e-3 : 0);
    steps.push_back(x);
  }
  const StepExtras e = fit_step_extras(steps);
  EXPECT_NEAR(e.step_overhead_s, 40e-6, 1e-12);
  // Deviations: 10 us x 10 and 30 us x 8: median 10 us.
  EXPECT_NEAR(e.compute_jitter_s, 1.4826 * 10e-6 * std::sqrt(2.0), 1e-12);
  // One member: no spread to measure, and none needed.
  for (StepSample& x : steps) x.member_compute_s.resize(1);
  EXPECT_EQ(fit_step_extras(steps).compute_jitter_s, 0);
  // A step can never cost less than its parts.
  for (StepSample& x : steps) x.seconds = 0;
  EXPECT_EQ(fit_step_extras(steps).step_overhead_s, 0);
}

}  // namespace
}  // namespace vnsim::real_exec
