#pragma once
// Tests that read ../shared find it through VNSIM_SHARED and skip, saying
// why, when it is not set (a checkout without the shared data).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace vnsim::testing {

inline std::string shared_dir() {
  const char* v = std::getenv("VNSIM_SHARED");
  if (v == nullptr || *v == '\0' || !std::filesystem::is_directory(v)) return {};
  return v;
}

}  // namespace vnsim::testing

// Sets `var` to the shared folder's path, or skips the test.
#define VNSIM_REQUIRE_SHARED(var)                         \
  const std::string var = ::vnsim::testing::shared_dir(); \
  if (var.empty()) GTEST_SKIP() << "VNSIM_SHARED is not set to a folder; skipping test that needs ../shared"
