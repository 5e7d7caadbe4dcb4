#include "vnsim/real_exec/resume.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vnsim/core/error.hpp"

namespace vnsim::real_exec {
namespace {

namespace fs = std::filesystem;

class PriorAttemptLog : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("vnsim-resume-" + std::to_string(::getpid()) + ".jsonl");
  }
  void TearDown() override { fs::remove(path_); }
  PriorAttempt read(const std::string& text) {
    std::ofstream(path_) << text;
    return read_prior_attempt(path_.string());
  }
  fs::path path_;
};

TEST_F(PriorAttemptLog, RebuildsEachJobAndIgnoresTheLineTheKillCut) {
  // a: 1 GPU from 0 to 4, finished. b: 2 GPUs from 1, preempted at 2,
  // restarted at 4 in segment 1, seen up to step 7 when the attempt died at
  // 6 (the last complete record). c: rejected.
  const PriorAttempt p = read(R"({"event":"submit","t":0,"job":"a","submit_s":0}
{"event":"start","t":0,"job":"a","epoch":0,"gpus":[0]}
{"event":"submit","t":1,"job":"b","submit_s":1}
{"event":"start","t":1,"job":"b","epoch":0,"gpus":[2,1]}
{"event":"preempt","t":2,"job":"b","epoch":0}
{"event":"submit","t":3,"job":"c","submit_s":3}
{"event":"reject","t":3,"job":"c","reason":"too big"}
{"event":"finish","t":4,"job":"a","epoch":0,"checksum":"1","params_consistent":true}
{"event":"start","t":4,"job":"b","epoch":1,"gpus":[0,1]}
{"event":"launch","t":4,"job":"b","epoch":1,"gpus":[0,1],"vn_per_gpu":[1,1],"start_iteration":2,"global_batch":96,"total_iterations":9}
{"event":"iteration","t":6,"job":"b","epoch":1,"iteration":6,"seconds":1,"compute_s":1,"allreduce_s":0}
{"event":"iteration","t":7,"job":"b","epo)");
  EXPECT_DOUBLE_EQ(p.last_t, 6);
  EXPECT_EQ(p.attempts, 1);
  const PriorJob& a = p.jobs.at("a");
  EXPECT_TRUE(a.done);
  EXPECT_FALSE(a.running);
  EXPECT_DOUBLE_EQ(a.record.finish_s, 4);
  EXPECT_DOUBLE_EQ(a.record.gpu_seconds, 4);  // 1 GPU x 4 s
  const PriorJob& b = p.jobs.at("b");
  EXPECT_FALSE(b.done);
  EXPECT_TRUE(b.running);
  EXPECT_EQ(b.last_epoch, 1);
  EXPECT_EQ(b.iterations_seen, 7);
  EXPECT_EQ(b.global_batch, 96);  // the last launch's: an adaptive-batch change
  EXPECT_EQ(b.total_iterations, 9);
  EXPECT_EQ(b.record.restarts, 1);
  EXPECT_DOUBLE_EQ(b.record.start_s, 1);
  EXPECT_EQ(b.record.gpus, (std::vector<GpuId>{0, 1}));
  EXPECT_DOUBLE_EQ(b.record.gpu_seconds, 2 * 1 + 2 * 2);  // [1,2] and [4,6] on 2 GPUs
  const PriorJob& c = p.jobs.at("c");
  EXPECT_TRUE(c.done);
  EXPECT_EQ(c.record.state, FinalState::Rejected);
  EXPECT_EQ(c.record.reason, "too big");
}

TEST_F(PriorAttemptLog, CountsAttemptsAndTheJobsTheyLost) {
  const PriorAttempt p = read(R"({"event":"submit","t":0,"job":"a","submit_s":0}
{"event":"start","t":0,"job":"a","epoch":0,"gpus":[0]}
{"event":"resume","t":3,"attempt":2}
{"event":"lost","t":3,"job":"a","epoch":0,"iterations_seen":3,"resume_iteration":2}
{"event":"start","t":3.5,"job":"a","epoch":1,"gpus":[1]}
)");
  EXPECT_EQ(p.attempts, 2);
  EXPECT_DOUBLE_EQ(p.last_t, 3.5);
  EXPECT_EQ(p.jobs.at("a").record.restarts, 1);
  EXPECT_TRUE(p.jobs.at("a").running);
  EXPECT_DOUBLE_EQ(p.jobs.at("a").record.gpu_seconds, 3);  // [0,3] before the loss; [3.5,3.5] after
}

TEST_F(PriorAttemptLog, AMalformedLineBeforeTheLastNamesFileAndLine) {
  try {
    read(
        "{\"event\":\"submit\",\"t\":0,\"job\":\"a\",\"submit_s\":0}\nnot json\n{\"event\":\"x\",\"t\":1}\n");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path_.string() + ":2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_prior_attempt((path_.string() + ".missing")), InputError);
}

}  // namespace
}  // namespace vnsim::real_exec
