#include <gtest/gtest.h>

#include <functional>

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

TEST(FormatDetection, FormatNames) {
  EXPECT_EQ(trace_format_names(),
            (std::vector<std::string>{"pollux-philly", "pollux-workload", "jsonl", "philly-joblog",
                                      "pai-2020", "openb-pods", "helios", "gavel", "tiresias"}));
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
  EXPECT_EQ(error_of([&] { read_trace(VNSIM_TRACES_TEST_DATA, "", BadRowPolicy::Skip); }),
            std::string(VNSIM_TRACES_TEST_DATA) + ": is a directory, not a trace file");
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
