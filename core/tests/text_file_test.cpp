#include "vnsim/core/text_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

TEST(TextFile, ReadsEveryByteBack) {
  const auto path = std::filesystem::temp_directory_path() / ("vnsim-text-" + std::to_string(::getpid()));
  const std::string bytes = std::string("line 1\r\nline 2\n") + '\0' + "tail";
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(read_text_file(path.string()), bytes);
  std::filesystem::remove(path);
}

TEST(TextFile, MissingFileNamesThePath) {
  try {
    read_text_file("/nonexistent/vnsim/profile.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/vnsim/profile.json: cannot read");
  }
}

}  // namespace
}  // namespace vnsim
