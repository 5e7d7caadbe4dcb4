// GPU-sharing interference table derived from Gavel's pair throughputs.
#include "vnsim/core/interference.hpp"

#include <gtest/gtest.h>

#include <string>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

// Gavel, V100: A3C alone runs 7.17577 steps/s; next to another A3C it runs
// 3.65717 steps/s. 3.65717 / 7.17577 = 0.5097 (one batch size, so the
// geometric mean is that ratio).
TEST(Interference, BuiltinMatchesGavelPair) {
  const InterferenceTable& t = InterferenceTable::builtin();
  EXPECT_NEAR(t.fraction("V100", "A3C", "A3C"), 0.5097, 1e-4);
  EXPECT_TRUE(t.measured("V100", "ResNet-50", "ResNet-18"));
  // Sharing is not symmetric: next to a ResNet-18, a ResNet-50 keeps 0.749
  // of its rate; next to a ResNet-50, a ResNet-18 keeps only 0.617.
  EXPECT_GT(t.fraction("V100", "ResNet-50", "ResNet-18"), t.fraction("V100", "ResNet-18", "ResNet-50"));
}

TEST(Interference, UnmeasuredFallsBackToDefault) {
  const InterferenceTable& t = InterferenceTable::builtin();
  EXPECT_FALSE(t.measured("H100", "ResNet-50", "ResNet-18"));
  EXPECT_DOUBLE_EQ(t.fraction("H100", "ResNet-50", "ResNet-18"), t.default_fraction());
  EXPECT_GT(t.default_fraction(), 0.0);
  EXPECT_LE(t.default_fraction(), 1.0);
}

TEST(Interference, BadValueNamesTheField) {
  try {
    InterferenceTable::parse(R"({"default_fraction": 0.5, "types": {"V100": {"A": {"B": -1}}}})", "i.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("i.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("types.V100.A.B"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vnsim
