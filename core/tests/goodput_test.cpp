#include "vnsim/core/goodput.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

NoiseScaleProfile constant_phi(double phi, int m0) {
  NoiseScaleProfile p;
  p.model = "toy";
  p.initial_batch = m0;
  p.max_batch = 64 * m0;
  p.total_progress = 1000;
  p.progress = {100};
  p.phi = {phi};
  return p;
}

// T_grad(m) = 0.1 + 0.01 m on the reference GPU; micro-batch 1..64.
ModelParams toy_model() {
  ModelParams m;
  m.name = "toy";
  m.alpha_compute_s = 0.1;
  m.beta_compute_s = 0.01;
  m.min_local_batch = 1;
  m.max_local_batch = 64;
  m.initial_batch = 8;
  m.max_global_batch = 512;
  return m;
}

TEST(StatisticalEfficiency, MatchesPolluxFormula) {
  // (phi + M0) / (phi + M) = (100 + 10) / (100 + 110) = 110 / 210.
  EXPECT_NEAR(statistical_efficiency(100, 10, 110), 110.0 / 210.0, 1e-12);
  EXPECT_DOUBLE_EQ(statistical_efficiency(100, 10, 10), 1.0);
  // Progress per step = (M / M0) x E = 11 x 110/210.
  EXPECT_NEAR(progress_per_step(100, 10, 110), 11.0 * 110.0 / 210.0, 1e-12);
}

TEST(StepsBetween, ConstantPhiIsProgressOverRate) {
  // phi = 90, M0 = 10, M = 100: rate = 10 x 100/190 = 5.263...; 1000 units
  // of progress take 1000 / rate = 190 steps.
  const NoiseScaleProfile p = constant_phi(90, 10);
  EXPECT_NEAR(steps_between(p, 100, 0, 1000), 190.0, 1e-9);
  EXPECT_NEAR(progress_after_steps(p, 100, 0, 190), 1000.0, 1e-9);
  // At M0 one step is one unit of progress.
  EXPECT_NEAR(steps_between(p, 10, 250, 750), 500.0, 1e-9);
}

TEST(StepsBetween, InvertsOnAGrowingNoiseScale) {
  NoiseScaleProfile p = constant_phi(1, 8);
  p.progress = {100, 200, 400};
  p.phi = {1, 100, 10000};
  for (double from : {0.0, 50.0, 150.0, 390.0}) {
    const double steps = steps_between(p, 256, from, 900);
    EXPECT_NEAR(progress_after_steps(p, 256, from, steps), 900.0, 1e-6) << "from " << from;
  }
  // Later progress has a larger phi, so the same 100 units take fewer steps
  // at a large batch.
  EXPECT_GT(steps_between(p, 256, 0, 100), steps_between(p, 256, 500, 600));
}

TEST(BatchChange, KeepsTheProgressLeft) {
  // phi = 90, M0 = 10. The job's work: 1000 steps at its spec batch 10 =
  // 1000 units of progress (rate 1 at M0). At batch 100 the rate is
  // 10 x 100/190 = 100/19, so 95 steps left = 500 units left; at batch 10
  // those 500 units take 500 steps.
  const NoiseScaleProfile p = constant_phi(90, 10);
  EXPECT_NEAR(steps_left_after_batch_change(&p, 10, 1000, 100, 95, 10), 500.0, 1e-6);
  // And back: 500 steps at 10 -> 95 at 100.
  EXPECT_NEAR(steps_left_after_batch_change(&p, 10, 1000, 10, 500, 100), 95.0, 1e-6);
  EXPECT_DOUBLE_EQ(steps_left_after_batch_change(&p, 10, 1000, 10, 500, 10), 500.0);
  // No profile: samples are kept, 100 steps of 64 = 200 steps of 32.
  EXPECT_DOUBLE_EQ(steps_left_after_batch_change(nullptr, 64, 1000, 64, 100, 32), 200.0);
}

// steps_left_after_batch_change as its steps read: the progress reached,
// bisected with steps_between at the old batch, then the steps left at the
// new one.
double reference_steps_left(const NoiseScaleProfile& noise, int spec_batch, double spec_iterations,
                            int old_batch, double steps_left, int new_batch) {
  if (steps_left <= 0 || old_batch == new_batch) return std::max(0.0, steps_left);
  const double total = progress_after_steps(noise, spec_batch, 0, spec_iterations);
  double lo = 0;
  double hi = total;
  if (steps_between(noise, old_batch, 0, total) <= steps_left) {
    hi = 0;
  } else {
    for (int i = 0; i < 100 && hi - lo > 1e-9 * std::max(1.0, total); ++i) {
      const double mid = 0.5 * (lo + hi);
      (steps_between(noise, old_batch, mid, total) > steps_left ? lo : hi) = mid;
    }
  }
  return steps_between(noise, new_batch, hi, total);
}

TEST(BatchChange, TakesTheOldBatchsPiecesOnceAndGivesWhatSteppingBetweenGives) {
  // The bisection reads the old batch's pieces (their phi) once instead of
  // at each of its steps: the steps left must be the reference's to the
  // bit, for per-batch profiles of the catalog and a knot profile, old and
  // new batches on either side of the spec's, from the start to the end.
  NoiseScaleProfile knots = constant_phi(1, 8);
  knots.progress = {100, 200, 400};
  knots.phi = {1, 100, 10000};
  std::vector<const NoiseScaleProfile*> profiles = {&knots};
  for (const char* model : {"cifar10", "imagenet", "yolov3", "bert"})
    if (const NoiseScaleProfile* p = NoiseScaleCatalog::builtin().find(model)) profiles.push_back(p);
  ASSERT_EQ(profiles.size(), 5u);
  int compared = 0;
  for (const NoiseScaleProfile* p : profiles) {
    const int spec = std::max(1, static_cast<int>(p->initial_batch));
    for (const int old_batch : {spec, 2 * spec, 8 * spec})
      for (const int new_batch : {spec, 4 * spec, std::max(1, spec / 2)})
        for (const double left : {1.0, 137.5, 5000.0, 20000.0, 1e6}) {
          EXPECT_EQ(steps_left_after_batch_change(p, spec, 20000, old_batch, left, new_batch),
                    reference_steps_left(*p, spec, 20000, old_batch, left, new_batch))
              << p->model << " " << old_batch << " -> " << new_batch << " with " << left << " left";
          ++compared;
        }
  }
  EXPECT_EQ(compared, 225);
}

TEST(NoiseScaleProfile, InterpolatesLogLinearly) {
  NoiseScaleProfile p = constant_phi(1, 8);
  p.progress = {100, 200};
  p.phi = {10, 1000};
  EXPECT_DOUBLE_EQ(p.phi_at(0), 10);
  EXPECT_NEAR(p.phi_at(150), 100, 1e-9);  // geometric middle of 10 and 1000
  EXPECT_DOUBLE_EQ(p.phi_at(500), 1000);
}

TEST(BestBatch, LargerNoiseScaleChoosesLargerBatch) {
  const ModelParams model = toy_model();
  // Candidates: 50 batches 8 x 64^(i/49) from M0 = 8 to 512.
  //   phi = 1: goodput(M) = M/(0.1 + 0.01M) x 9/(1 + M) falls from M = 8:
  //     44.44 at 8, 42.63 at 9; so M = 8 (m = 8, s = 0).
  //   phi = 1000: below m = 64, d log goodput / dM = 0.1/(M(0.1 + 0.01M)) -
  //     1/(1000 + M) > 0, so the best is the largest candidate without
  //     accumulation: i = 24 -> 8 x 64^(24/49) = 61.3 -> m = 62; goodput
  //     62/0.72 x 1008/1062 = 81.73. The next (i = 25, 66.8) needs s = 1, m = 34:
  //     68/0.88 x 1008/1068 = 72.9; 128 (s = 1, m = 64): 77.3.
  for (double phi : {1.0, 1000.0}) {
    const NoiseScaleProfile noise = constant_phi(phi, 8);
    GoodputInputs in{&model, &noise, 1.0, 64, 512};
    const BatchChoice c = best_batch(in, 0, 1, 0);
    if (phi == 1.0) {
      EXPECT_EQ(c.global_batch, 8);
      EXPECT_EQ(c.accumulation_steps, 0);
      EXPECT_NEAR(c.goodput, 8 / 0.18, 1e-9);
    } else {
      EXPECT_EQ(c.global_batch, 62);
      EXPECT_EQ(c.local_batch, 62);
      EXPECT_EQ(c.accumulation_steps, 0);
      EXPECT_NEAR(c.goodput, 62 / 0.72 * 1008.0 / 1062.0, 1e-9);
    }
  }
}

TEST(BestBatch, MemoryLimitForcesAccumulation) {
  // Micro-batch capped at 16: a batch of 64 on one GPU needs s = 3.
  const ModelParams model = toy_model();
  const NoiseScaleProfile noise = constant_phi(1e9, 8);  // efficiency ~1: biggest batch wins
  GoodputInputs in{&model, &noise, 1.0, 16, 64};
  const BatchChoice c = best_batch(in, 0, 1, 0.5);
  // With sync 0.5 s, throughput M/((s+1)(0.1+0.01x16)+0.5) grows with s:
  // M = 64 -> s = 3, m = 16: 64 / (4 x 0.26 + 0.5) = 41.56.
  EXPECT_EQ(c.global_batch, 64);
  EXPECT_EQ(c.local_batch, 16);
  EXPECT_EQ(c.accumulation_steps, 3);
  EXPECT_NEAR(c.throughput, 64 / 1.54, 1e-9);
}

TEST(MaxLocalBatch, FromMemory) {
  ModelParams m = toy_model();
  m.weight_state_bytes = 1e9;
  m.memory_per_sample_bytes = 1e8;
  EXPECT_EQ(max_local_batch_for_memory(m, 3e9), 20);   // (3e9 - 1e9) / 1e8
  EXPECT_EQ(max_local_batch_for_memory(m, 1e10), 64);  // capped at the profiled range
  EXPECT_EQ(max_local_batch_for_memory(m, 1e9), 0);
}

TEST(NoiseScaleCatalog, BuiltinHasThePolluxModels) {
  const NoiseScaleCatalog& c = NoiseScaleCatalog::builtin();
  const NoiseScaleProfile* cifar = c.find("cifar10");
  ASSERT_NE(cifar, nullptr);
  EXPECT_EQ(cifar->initial_batch, 128);
  // phi = M0 * grad_var / grad_sqr of the Pollux OSDI'21 artifact's
  // cifar10 validation-128.csv (computed): ~72 at the first epoch, ~3.9e4 at the last.
  EXPECT_NEAR(cifar->phi.front(), 72, 1);
  EXPECT_NEAR(cifar->phi.back(), 3.9e4, 0.05e4);
  EXPECT_EQ(c.find("nope"), nullptr);
}

TEST(NoiseScaleCatalog, RejectsBadKnots) {
  const std::string bad =
      R"({"models":{"x":{"initial_batch":8,"max_batch":64,"total_progress":10,"phi":[[5,1],[4,2]]}}})";
  try {
    NoiseScaleCatalog::parse(bad, "n.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("n.json: models.x.phi: progress must be strictly increasing"),
              std::string::npos)
        << e.what();
  }
}

// Two epochs ending at progress 100 and 300, validated batches 10 (= M0)
// and 30. grad_sqr of batch 10 in epoch 2 is negative (pure noise).
NoiseScaleProfile two_epochs_two_batches() {
  NoiseScaleProfile p = constant_phi(1, 10);
  p.total_progress = 300;
  p.epoch_end = {100, 300};
  p.batches = {10, 30};
  p.grad_sqr = {{1, -1}, {1, 3}};
  p.grad_var = {{9, 1}, {29, 3}};
  return p;
}

TEST(PerBatchNoise, PhiFromTheBatchsOwnStatisticsInterpolatedLinearly) {
  const NoiseScaleProfile p = two_epochs_two_batches();
  // Batch 10, epoch 1: 10 x 9 / 1. Batch 30, epoch 2: 10 x 3 / 3.
  EXPECT_DOUBLE_EQ(p.phi_at(50, 10), 90);
  EXPECT_DOUBLE_EQ(p.phi_at(299, 30), 10);
  // Batch 20, halfway: sqr = 1, var = (9 + 29) / 2 = 19 in epoch 1; sqr = (-1 + 3) / 2 = 1,
  // var = 2 in epoch 2. Epoch 1 ends at 100: progress 100 is already epoch 2.
  EXPECT_DOUBLE_EQ(p.phi_at(99.9, 20), 190);
  EXPECT_DOUBLE_EQ(p.phi_at(100, 20), 20);
  // Outside the validated batches: the nearest one's statistics; past the last epoch: its statistics.
  EXPECT_DOUBLE_EQ(p.phi_at(0, 40), 290);
  EXPECT_DOUBLE_EQ(p.phi_at(1e6, 40), 10);
  // Non-positive grad_sqr: efficiency 1.
  EXPECT_DOUBLE_EQ(statistical_efficiency(p.phi_at(200, 10), 10, 10), 1);
  EXPECT_DOUBLE_EQ(statistical_efficiency(p.phi_at(200, 10), 10, 1000), 1);
}

TEST(PerBatchNoise, StepsToTargetAreTheSimulatorsPerEpochSum) {
  const NoiseScaleProfile p = two_epochs_two_batches();
  // Batch 20 (s = 2): epoch 1 rate 2 x 200/210, 100 units -> 52.5 steps; epoch 2 rate 2 x 30/40 = 1.5,
  // 200 units -> 133.33 steps.
  EXPECT_NEAR(steps_to_target(p, 20), 52.5 + 200 / 1.5, 1e-9);
  EXPECT_NEAR(steps_between(p, 20, 100, 300), 200 / 1.5, 1e-9);
  EXPECT_NEAR(progress_after_steps(p, 20, 0, 52.5), 100, 1e-9);
  EXPECT_NEAR(progress_after_steps(p, 20, 0, 52.5 + 200 / 1.5), 300, 1e-9);
  // Batch 10 = M0: one unit per step, whatever phi.
  EXPECT_NEAR(steps_to_target(p, 10), 300, 1e-9);
  // Batch 40 (s = 4), clamped to batch 30's statistics: rates 4 x 300/330 and 4 x 20/50.
  EXPECT_NEAR(steps_to_target(p, 40), 100 / (4 * 300.0 / 330) + 200 / 1.6, 1e-9);
}

TEST(PerBatchNoise, BestBatchPricesEachCandidateWithItsOwnPhi) {
  // Same model and sync; per-batch statistics that make every batch above M0 = 8 pure noise
  // (efficiency 1) versus the M0 run's phi = 1 (large batches nearly worthless).
  const ModelParams m = toy_model();
  NoiseScaleProfile noisy = constant_phi(1, 8);
  noisy.epoch_end = {1000};
  noisy.batches = {8, 16};
  noisy.grad_sqr = {{1}, {-1}};
  noisy.grad_var = {{0.125}, {1}};
  const NoiseScaleProfile m0_only = constant_phi(1, 8);
  GoodputInputs in{&m, &noisy, 1.0, 64, 512};
  const BatchChoice per_batch = best_batch(in, 0, 1, 0);
  in.noise = &m0_only;
  const BatchChoice m0_phi = best_batch(in, 0, 1, 0);
  EXPECT_GT(per_batch.global_batch, m0_phi.global_batch);
  EXPECT_EQ(m0_phi.global_batch, 8);
}

TEST(NoiseScaleCatalog, BuiltinHasPerBatchStatistics) {
  const NoiseScaleProfile* cifar = NoiseScaleCatalog::builtin().find("cifar10");
  ASSERT_NE(cifar, nullptr);
  ASSERT_TRUE(cifar->per_batch());
  EXPECT_EQ(cifar->epoch_end.size(), 100u);
  EXPECT_EQ(cifar->batches, (std::vector<int>{128, 256, 512, 1024, 2048, 4096}));
  EXPECT_DOUBLE_EQ(cifar->total_progress, cifar->epoch_end.back());
}

TEST(NoiseScaleCatalog, RejectsBadPerBatchTables) {
  const std::string bad =
      R"({"models":{"x":{"initial_batch":8,"max_batch":64,"total_progress":10,"phi":[[5,1]],
      "per_batch":{"epoch_end":[5,10],"batches":[8,16],"grad_sqr":[[1,1],[1]],"grad_var":[[1,1],[1,1]]}}}})";
  try {
    NoiseScaleCatalog::parse(bad, "n.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("n.json: models.x.per_batch.grad_sqr: one value per epoch"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vnsim
