// Atomic outputs beyond `vnsim replay` (docs/OUTPUTS.md, "Atomic outputs"):
// `vnsim trace convert` writes OUT and --skipped under temporary names and
// renames them once both are written, so a failed conversion leaves no
// partial file and an earlier OUT whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_process_test.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::slurp;

class AtomicOutputs : public vnsim::testing::CliProcessTest {
 protected:
  AtomicOutputs() : CliProcessTest("vnsim-atomic-") {}
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // No temporary file or folder is left in the scratch folder.
  void expect_no_temporaries() const {
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
  }
};

const char* const kGood = R"({"id":"a","submit_s":0,"gpus":1,"trace_duration_s":60})"
                          "\n"
                          R"({"id":"b","submit_s":5,"gpus":2,"trace_duration_s":120})"
                          "\n";

TEST_F(AtomicOutputs, TraceConvertThatFailsLeavesTheEarlierOutputWhole) {
  write("in.jsonl", kGood);
  ASSERT_EQ(vnsim("trace convert " + p("in.jsonl") + " --to jsonl " + p("out.jsonl") + " --quiet"), 0)
      << err();
  const std::string before = slurp(dir_ / "out.jsonl");
  ASSERT_NE(before.find("\"id\":\"b\""), std::string::npos) << before;

  // A bad row late in the input with --bad-rows fail.
  write("late_bad.jsonl", std::string(kGood) + R"({"id":"c","submit_s":9,"gpus":"many"})" + "\n");
  EXPECT_EQ(vnsim("trace convert " + p("late_bad.jsonl") + " --to jsonl " + p("out.jsonl") +
                  " --bad-rows fail --quiet"),
            2);
  EXPECT_NE(err().find("late_bad.jsonl:3"), std::string::npos) << err();
  EXPECT_EQ(slurp(dir_ / "out.jsonl"), before);
  expect_no_temporaries();

  // The second output cannot be written (--skipped names a folder): the first
  // is not replaced either. Before both were staged, OUT was already
  // rewritten when the --skipped write failed.
  write("other.jsonl", R"({"id":"z","submit_s":0,"gpus":4,"trace_duration_s":10})"
                       "\n");
  fs::create_directories(dir_ / "a-folder");
  EXPECT_EQ(vnsim("trace convert " + p("other.jsonl") + " --to jsonl " + p("out.jsonl") + " --skipped " +
                  p("a-folder") + " --quiet"),
            2);
  EXPECT_NE(err().find("a-folder: is a folder"), std::string::npos) << err();
  EXPECT_EQ(slurp(dir_ / "out.jsonl"), before);
  expect_no_temporaries();

  // OUT itself a folder: a user error before the input is read.
  EXPECT_EQ(vnsim("trace convert " + p("other.jsonl") + " --to jsonl " + p("a-folder") + " --quiet"), 2);
  EXPECT_NE(err().find("is a folder"), std::string::npos) << err();

  // A conversion that succeeds replaces both files.
  ASSERT_EQ(vnsim("trace convert " + p("other.jsonl") + " --to jsonl " + p("out.jsonl") + " --skipped " +
                  p("skipped.csv") + " --quiet"),
            0)
      << err();
  EXPECT_NE(slurp(dir_ / "out.jsonl").find("\"id\":\"z\""), std::string::npos);
  EXPECT_EQ(slurp(dir_ / "skipped.csv").rfind("file,line,reason,kind\n", 0), 0u);
  expect_no_temporaries();
}

// `trace generate` and `trace cluster` stage their one output too: a good
// run leaves the file and no temporary, a failed one (an inventory that
// cannot be read) leaves an earlier file whole. What a kill in the middle
// leaves is StagedFile's own test (core).
TEST_F(AtomicOutputs, TraceGenerateAndClusterWriteTheirFileWholeOrNotAtAll) {
  ASSERT_EQ(vnsim("trace generate --kind philly --jobs 50 --out " + p("gen.jsonl")), 0) << err();
  std::ifstream gen(dir_ / "gen.jsonl");
  int lines = 0;
  for (std::string line; std::getline(gen, line);) ++lines;
  EXPECT_EQ(lines, 50);
  expect_no_temporaries();

  write("spec.json", "earlier\n");
  EXPECT_EQ(vnsim("trace cluster --from " + p("missing-machines.csv") + " --out " + p("spec.json")), 2);
  EXPECT_EQ(slurp(dir_ / "spec.json"), "earlier\n");
  expect_no_temporaries();
  fs::create_directories(dir_ / "a-folder");
  EXPECT_EQ(vnsim("trace generate --kind philly --jobs 5 --out " + p("a-folder")), 2);
  EXPECT_NE(err().find("is a folder"), std::string::npos) << err();
}

}  // namespace
