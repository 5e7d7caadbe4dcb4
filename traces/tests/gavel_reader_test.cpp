// gavel reader: 10-field (current) and 7-field (2019) traces, by hand.
#include <gtest/gtest.h>

#include "crlf_copy.hpp"
#include "trace_test_support.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

// Each job type maps to a catalog model; a step of the whole job is
// scale_factor worker steps of the per-worker batch (docs/TRACES.md, gavel).
void expect_small_gavel(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "gavel");
  ASSERT_EQ(r.jobs.size(), 8u);
  const std::vector<std::string> ids = {"gavel-2", "gavel-1", "gavel-3", "gavel-4",
                                        "gavel-5", "gavel-7", "gavel-8", "gavel-9"};
  const std::vector<std::string> models = {"cifar10", "imagenet", "transformer", "ncf",
                                           "cifar10", "cyclegan", "a3c",         "lm"};
  const std::vector<double> submit = {0, 100, 250, 300, 310, 320, 330, 340};
  // ceil(total_steps / scale_factor): 100 / 32 -> 4, 71711 / 4 -> 17928, 2388099 / 8 -> 298513.
  const std::vector<std::int64_t> iterations = {3000, 12500, 4500, 250, 4, 17928, 1000, 298513};
  const std::vector<int> gpus = {1, 4, 2, 8, 32, 4, 1, 8};
  // Per-worker batch x scale_factor; CycleGAN and A3C run batch 1 per worker.
  const std::vector<int> batch = {128, 256, 64, 65536, 512, 4, 1, 40};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(r.jobs[i].id, ids[i]);
    EXPECT_EQ(r.jobs[i].model, models[i]) << ids[i];
    EXPECT_DOUBLE_EQ(r.jobs[i].submit_s, submit[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].iterations, iterations[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].gpus, gpus[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].global_batch, batch[i]) << ids[i];
    EXPECT_DOUBLE_EQ(r.jobs[i].trace_duration_s, -1) << ids[i];
  }
  const std::vector<std::pair<long, std::string>> expected = {
      {6, "expected 10 tab-separated fields, found 6"},
      {10, "Gavel job type 'GPT-2 (batch size 8)' has no catalog model (docs/TRACES.md, gavel)"},
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason, expected[i].second);
  }
}

TEST(GavelReader, ReadsTenFieldTrace) {
  expect_small_gavel(read_trace(trace_data("gavel_small.trace"), "", BadRowPolicy::Skip));
}

TEST(GavelReader, CrlfGivesTheSameResult) {
  const auto crlf = testing::crlf_copy(trace_data("gavel_small.trace"), "gavel_crlf");
  expect_small_gavel(read_trace(crlf, "gavel", BadRowPolicy::Skip));
}

TEST(GavelReader, ReadsSevenFieldTrace) {
  const auto r = read_trace(trace_data("gavel_2019.trace"), "", BadRowPolicy::Fail);
  EXPECT_EQ(r.format, "gavel");
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].id, "gavel-1");
  EXPECT_EQ(r.jobs[0].model, "imagenet");
  EXPECT_EQ(r.jobs[0].iterations, 500);  // 1000 worker steps on 2 workers
  EXPECT_EQ(r.jobs[0].gpus, 2);
  EXPECT_EQ(r.jobs[0].global_batch, 64);  // batch 32 on each worker
  EXPECT_EQ(r.jobs[1].id, "gavel-2");
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 30);  // arrivals 60 and 90
  EXPECT_EQ(r.jobs[1].model, "cifar10");
}

}  // namespace
}  // namespace vnsim
