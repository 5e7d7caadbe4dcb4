// Offline throughput profiles: interpolation, monotone rounding, the
// embedded Gavel-derived table and parse errors.
#include "vnsim/core/throughput_profile.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

// Points (10, 100/s), (20, 100/s), (40, 80/s): step times 0.1, 0.2, 0.5 s.
// Halfway between 20 and 40 samples: 0.2 + 0.5 x 0.3 = 0.35 s.
TEST(ThroughputProfile, InterpolatesStepTime) {
  const ThroughputProfile p({{10, 100.0}, {20, 100.0}, {40, 80.0}});
  EXPECT_DOUBLE_EQ(p.step_s(5), 0.1);
  EXPECT_DOUBLE_EQ(p.step_s(10), 0.1);
  EXPECT_DOUBLE_EQ(p.step_s(15), 0.15);
  EXPECT_DOUBLE_EQ(p.step_s(30), 0.35);
  EXPECT_EQ(p.max_batch(), 40);
  EXPECT_THROW(p.step_s(41), std::invalid_argument);
}

// 16 samples at 80/s = 0.2 s, but 32 samples at 320/s = 0.1 s: the larger
// batch is raised to 0.2 s so that more samples never take less time.
TEST(ThroughputProfile, InversionIsRaised) {
  const ThroughputProfile p({{16, 80.0}, {32, 320.0}});
  EXPECT_DOUBLE_EQ(p.step_s(32), 0.2);
  EXPECT_DOUBLE_EQ(p.step_s(24), 0.2);
}

// Gavel: ResNet-50, batch 32, one V100 at 7.787 steps/s = 249.192 samples/s.
TEST(ThroughputProfiles, BuiltinHasGavelNumbers) {
  const ThroughputProfiles& all = ThroughputProfiles::builtin();
  const ThroughputProfile* v100 = all.find("ResNet-50", "V100");
  ASSERT_NE(v100, nullptr);
  EXPECT_NEAR(v100->step_s(32), 32 / 249.192, 1e-9);
  // A100 = V100 x 2470/1200 (docs/HETEROGENEITY.md).
  const ThroughputProfile* a100 = all.find("ResNet-50", "A100");
  ASSERT_NE(a100, nullptr);
  EXPECT_NEAR(v100->step_s(32) / a100->step_s(32), 2470.0 / 1200.0, 1e-4);
  EXPECT_EQ(all.family_of_model("imagenet"), std::optional<std::string>("ResNet-50"));
  EXPECT_EQ(all.find("ResNet-50", "T4"), nullptr);
}

TEST(ThroughputProfiles, BadInputNamesTheField) {
  try {
    ThroughputProfiles::parse(R"({"families": {"X": {"V100": [[32, 10], [16, 5]]}}})", "p.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("p.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("batches must increase"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vnsim
