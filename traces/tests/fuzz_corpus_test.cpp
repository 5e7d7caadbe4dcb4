// The fuzz targets are made from the seed-corpus folders (traces/fuzz,
// scripts/fuzz); this keeps those folders equal to the registered formats,
// so every format is fuzzed and no folder names a format that is gone.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "trace_test_support.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {
namespace {

namespace fs = std::filesystem;

TEST(FuzzCorpus, OneSeedFolderPerFormat) {
  const fs::path corpus = fs::path(testing::trace_data_dir()) / ".." / ".." / ".." / "tests" / "fuzz_corpus";
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    if (!entry.is_directory()) continue;
    folders.push_back(entry.path().filename().string());
    EXPECT_FALSE(fs::is_empty(entry.path())) << folders.back() << ": a corpus folder needs seed files";
  }
  std::vector<std::string> formats = trace_format_names();
  std::sort(folders.begin(), folders.end());
  std::sort(formats.begin(), formats.end());
  EXPECT_EQ(folders, formats) << "tests/fuzz_corpus/ needs one folder of seed files per trace format";
}

}  // namespace
}  // namespace vnsim
