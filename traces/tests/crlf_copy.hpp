#pragma once
// CRLF copies of the hand-written samples, made at test time so that the
// data folder holds each sample once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vnsim::testing {

inline std::string crlf_copy(const std::string& source, const std::string& dir_name) {
  std::ifstream in(source, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const auto dir = std::filesystem::path(::testing::TempDir()) / dir_name;
  std::filesystem::create_directories(dir);
  const auto target = dir / std::filesystem::path(source).filename();
  std::ofstream out(target, std::ios::binary);
  for (char c : text.str()) {
    if (c == '\n') out << '\r';
    out << c;
  }
  return target.string();
}

}  // namespace vnsim::testing
