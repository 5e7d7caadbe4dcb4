#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <stdexcept>

#include "line_reader.hpp"
#include "trace_format.hpp"
#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FormatDetection, FromTheFirstNonBlankLine) {
  EXPECT_EQ(detect_trace_format(trace_data("philly_small.csv")), "pollux-philly");
  EXPECT_EQ(detect_trace_format(trace_data("philly_small_crlf.csv")), "pollux-philly");
  EXPECT_EQ(detect_trace_format(trace_data("workload_small.csv")), "pollux-workload");
  EXPECT_EQ(detect_trace_format(trace_data("workload_small_crlf.csv")), "pollux-workload");
  EXPECT_EQ(detect_trace_format(trace_data("jobs_bad_rows.jsonl")), "jsonl");
  EXPECT_EQ(detect_trace_format(trace_data("philly_joblog_small.json")), "philly-joblog");
  EXPECT_EQ(detect_trace_format(trace_data("pai_small")), "pai-2020");
  EXPECT_EQ(detect_trace_format(trace_data("openb_small.csv")), "openb-pods");
  EXPECT_EQ(detect_trace_format(trace_data("helios_small.csv")), "helios");
  EXPECT_EQ(detect_trace_format(trace_data("acme_small.csv")), "helios");
  EXPECT_EQ(detect_trace_format(trace_data("gavel_small.trace")), "gavel");
  EXPECT_EQ(detect_trace_format(trace_data("gavel_2019.trace")), "gavel");
  EXPECT_EQ(detect_trace_format(trace_data("tiresias_small.csv")), "tiresias");
}

// The formats of this test keep their order (the order of detection, of the
// usage and of docs/TRACES.md's table); a new format may take any place.
TEST(FormatDetection, FormatNames) {
  const std::vector<std::string> kept = {"pollux-philly", "pollux-workload", "jsonl",
                                         "philly-joblog", "pai-2020",        "openb-pods",
                                         "helios",        "gavel",           "tiresias"};
  std::vector<std::string> names = trace_format_names();
  std::erase_if(names,
                [&](const std::string& n) { return std::find(kept.begin(), kept.end(), n) == kept.end(); });
  EXPECT_EQ(names, kept);
}

// Each format's first-line claim is its own: no sample of any format (the
// test data and every fuzz seed) is claimed outright by two formats, so the
// order in which formats are asked decides nothing but the Fallback pass.
TEST(FormatDetection, NoFirstLineIsClaimedByTwoFormats) {
  namespace fs = std::filesystem;
  const fs::path data = testing::trace_data_dir();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(data))
    if (entry.is_regular_file()) files.push_back(entry.path());
  for (const auto& entry :
       fs::recursive_directory_iterator(data / ".." / ".." / ".." / "tests" / "fuzz_corpus"))
    if (entry.is_regular_file()) files.push_back(entry.path());
  int claimed = 0;
  for (const auto& file : files) {
    std::string line;
    try {
      traces_detail::LineReader reader(file.string());
      line = traces_detail::first_content_line(reader);
    } catch (const InputError&) {
      continue;  // empty samples
    }
    std::vector<std::string> claims;
    for (const auto& format : traces_detail::registered_trace_formats())
      if (format.claims_first_line && format.claims_first_line(line) == traces_detail::FirstLineMatch::Yes)
        claims.push_back(format.name);
    EXPECT_LE(claims.size(), 1u) << file << " is claimed by " << claims.front() << " and " << claims.back();
    claimed += claims.empty() ? 0 : 1;
  }
  EXPECT_GT(claimed, 30) << "the samples were not found";
}

TEST(FormatDetection, ARegistrationNeedsAFreshNameAndOneReader) {
  using traces_detail::TraceFormat;
  using traces_detail::TraceFormatRegistration;
  const auto before = trace_format_names();
  TraceFormat twice;
  twice.name = "jsonl";
  twice.read_file = [](const std::string&, BadRowPolicy) { return TraceReadResult{}; };
  EXPECT_THROW(TraceFormatRegistration{twice}, std::logic_error);
  TraceFormat no_reader;
  no_reader.name = "no-reader";
  EXPECT_THROW(TraceFormatRegistration{no_reader}, std::logic_error);
  EXPECT_EQ(trace_format_names(), before);  // neither was added
}

TEST(FormatDetection, UnknownHeaderNamesFileAndLine) {
  const std::string file = trace_data("unknown_header.csv");
  const std::string e = error_of([&] { detect_trace_format(file); });
  EXPECT_EQ(e.rfind(file + ":1: unrecognised first line 'foo,bar'", 0), 0u) << e;
  EXPECT_EQ(error_of([&] { read_trace(file, "", BadRowPolicy::Skip); }), e);
}

TEST(FormatDetection, EmptyAndMissingFiles) {
  const std::string blank = trace_data("blank_only.csv");
  EXPECT_EQ(error_of([&] { read_trace(blank, "", BadRowPolicy::Skip); }),
            blank + ": empty trace (no header or data line)");
  const std::string missing = trace_data("no_such_file.csv");
  EXPECT_EQ(error_of([&] { read_trace(missing, "", BadRowPolicy::Skip); }),
            missing + ": cannot open trace file");
  EXPECT_EQ(error_of([&] { read_trace(testing::trace_data_dir(), "", BadRowPolicy::Skip); }),
            testing::trace_data_dir() + ": is a directory, not a trace file");
}

TEST(FormatDetection, ExplicitFormatMustMatchTheHeader) {
  const std::string file = trace_data("philly_small.csv");
  EXPECT_EQ(error_of([&] { read_trace(file, "pollux-workload", BadRowPolicy::Skip); }),
            file +
                ":1: header 'timestamp,duration,num_gpus,gpu_time,cluster' is not the pollux-workload header "
                "'name,time,application,num_replicas,batch_size': header "
                "'timestamp,duration,num_gpus,gpu_time,cluster' lacks column(s) name, time, application, "
                "num_replicas, batch_size (expected 'name,time,application,num_replicas,batch_size', in any "
                "order)");
  const std::string e = error_of([&] { read_trace(file, "sia", BadRowPolicy::Skip); });
  EXPECT_NE(e.find("unknown trace format 'sia'"), std::string::npos) << e;
  EXPECT_EQ(error_of([&] { read_trace(file, "tiresias", BadRowPolicy::Skip); }),
            file +
                ":1: header 'timestamp,duration,num_gpus,gpu_time,cluster' is not the tiresias header "
                "'job_id,num_gpu,submit_time,iterations,model_name,duration,interval'");
  // A CSV read as jsonl: every line is a bad row, reported, not a crash.
  const auto r = read_trace(file, "jsonl", BadRowPolicy::Skip);
  EXPECT_TRUE(r.jobs.empty());
  EXPECT_EQ(r.skipped.size(), 7u);
}

}  // namespace
}  // namespace vnsim
