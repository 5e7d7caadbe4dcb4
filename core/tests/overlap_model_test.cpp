// Bucketed compute/communication overlap (DDP-like) against hand-computed
// step times: step = (1-f)*C + max(f*C, A).
#include <gtest/gtest.h>

#include <stdexcept>

#include "vnsim/core/error.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim {
namespace {

TEST(OverlappedStep, NoOverlapIsTheSum) {
  EXPECT_DOUBLE_EQ(overlapped_step_s(0.6, 0.4, 0.0), 1.0);
}

TEST(OverlappedStep, FullOverlapIsTheLongerOfTheTwo) {
  EXPECT_DOUBLE_EQ(overlapped_step_s(0.6, 0.4, 1.0), 0.6);
  EXPECT_DOUBLE_EQ(overlapped_step_s(0.3, 0.4, 1.0), 0.4);
}

TEST(OverlappedStep, PartialOverlapHidesOnlyTheWindow) {
  // f = 0.5, C = 0.6: the window is 0.3 s. A = 0.4 > 0.3, so 0.3 + 0.4 = 0.7.
  EXPECT_NEAR(overlapped_step_s(0.6, 0.4, 0.5), 0.7, 1e-15);
  // A = 0.1 fits in the window: 0.3 + 0.3 = 0.6 (communication fully hidden).
  EXPECT_NEAR(overlapped_step_s(0.6, 0.1, 0.5), 0.6, 1e-15);
}

TEST(OverlappedStep, FractionOutsideZeroOneIsRefused) {
  EXPECT_THROW(overlapped_step_s(1, 1, -0.1), std::invalid_argument);
  EXPECT_THROW(overlapped_step_s(1, 1, 1.5), std::invalid_argument);
}

TEST(OverlapFraction, CatalogDefaultIsNoOverlapAndValuesAreChecked) {
  const char* base = R"({"models": {"m": {"alpha_compute_s": 0.1, "beta_compute_s": 0.01,
      "gradient_bytes": 1e6, "weight_state_bytes": 0, "memory_per_sample_bytes": 0,
      "min_local_batch": 1, "max_local_batch": 8, "default_local_batch": 4, "initial_batch": 4,
      "max_global_batch": 64, "overlap_gamma": 1.5 %s}}})";
  char text[1024];
  std::snprintf(text, sizeof text, base, "");
  EXPECT_EQ(ModelCatalog::parse(text, "t").at("m").overlap_fraction, 0.0);
  std::snprintf(text, sizeof text, base, R"(, "overlap_fraction": 0.75)");
  EXPECT_EQ(ModelCatalog::parse(text, "t").at("m").overlap_fraction, 0.75);
  std::snprintf(text, sizeof text, base, R"(, "overlap_fraction": 1.5)");
  EXPECT_THROW(ModelCatalog::parse(text, "t"), InputError);
}

}  // namespace
}  // namespace vnsim
