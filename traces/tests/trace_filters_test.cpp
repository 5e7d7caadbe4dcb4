// Filters, the failed-job rule and model rule files.
#include <gtest/gtest.h>

#include <set>

#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/job_preparation.hpp"

namespace vnsim {
namespace {

std::vector<JobSpec> sample_jobs() {
  // id, submit, gpus, duration, vc, user, status
  struct Row {
    const char* id;
    double submit;
    int gpus;
    double duration;
    const char* vc;
    const char* user;
    TraceStatus status;
  };
  const Row rows[] = {{"a", 0, 1, 100, "v1", "u1", TraceStatus::Pass},
                      {"b", 100, 2, 200, "v2", "u1", TraceStatus::Failed},
                      {"c", 200, 4, 300, "v1", "u2", TraceStatus::Killed},
                      {"d", 300, 8, 400, "v1", "u2", TraceStatus::Unknown},
                      {"e", 400, 16, 500, "v2", "u3", TraceStatus::Pass}};
  std::vector<JobSpec> jobs;
  for (const auto& r : rows) {
    JobSpec j;
    j.id = r.id;
    j.submit_s = r.submit;
    j.gpus = r.gpus;
    j.trace_duration_s = r.duration;
    j.vc = r.vc;
    j.user = r.user;
    j.status = r.status;
    jobs.push_back(j);
  }
  return jobs;
}

std::vector<std::string> ids(const std::vector<JobSpec>& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs) out.push_back(j.id);
  return out;
}

TEST(TraceFilters, DefaultFilterKeepsEverythingUnchanged) {
  auto jobs = sample_jobs();
  EXPECT_TRUE(apply_trace_filter(jobs, TraceFilter{}, "t").empty());
  EXPECT_EQ(ids(jobs), ids(sample_jobs()));
  EXPECT_DOUBLE_EQ(jobs[4].submit_s, 400);
}

TEST(TraceFilters, TimeWindowKeepsHalfOpenIntervalAndRebases) {
  auto jobs = sample_jobs();
  TraceFilter f;
  f.from_s = 100;
  f.to_s = 300;
  const auto removed = apply_trace_filter(jobs, f, "t.csv");
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"b", "c"}));
  EXPECT_DOUBLE_EQ(jobs[0].submit_s, 0);
  EXPECT_DOUBLE_EQ(jobs[1].submit_s, 100);
  ASSERT_EQ(removed.size(), 3u);
  EXPECT_EQ(removed[0].message(), "t.csv:0: job 'a' removed by --from-s: submitted at 0 s");
  EXPECT_EQ(removed[1].reason, "job 'd' removed by --to-s: submitted at 300 s");
}

TEST(TraceFilters, VcUserStatusAndGpuBounds) {
  auto jobs = sample_jobs();
  TraceFilter vc;
  vc.vcs = {"v1"};
  apply_trace_filter(jobs, vc, "t");
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"a", "c", "d"}));

  jobs = sample_jobs();
  TraceFilter user;
  user.users = {"u2", "u3"};
  apply_trace_filter(jobs, user, "t");
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"c", "d", "e"}));

  jobs = sample_jobs();
  TraceFilter failed;
  failed.status = StatusFilter::DropFailed;
  apply_trace_filter(jobs, failed, "t");
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"a", "c", "d", "e"}));

  jobs = sample_jobs();
  failed.status = StatusFilter::DropKilledFailed;
  const auto removed = apply_trace_filter(jobs, failed, "t");
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"a", "d", "e"}));  // unknown status is kept
  EXPECT_EQ(removed[1].reason, "job 'c' removed by --status: killed");

  jobs = sample_jobs();
  TraceFilter gpus;
  gpus.min_gpus = 2;
  gpus.max_gpus = 8;
  apply_trace_filter(jobs, gpus, "t");
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"b", "c", "d"}));
}

TEST(TraceFilters, ArrivalScaleDividesGapsAndLoadScaleMultipliesDurations) {
  auto jobs = sample_jobs();
  TraceFilter f;
  f.arrival_scale = 2;  // twice the arrival rate
  f.load_scale = 0.5;
  apply_trace_filter(jobs, f, "t");
  EXPECT_DOUBLE_EQ(jobs[4].submit_s, 200);
  EXPECT_DOUBLE_EQ(jobs[4].trace_duration_s, 250);
  // Without a duration, known iterations are scaled instead.
  JobSpec w;
  w.id = "w";
  w.iterations = 1001;
  std::vector<JobSpec> only{w};
  apply_trace_filter(only, f, "t");
  EXPECT_EQ(only[0].iterations, 501);  // llround(500.5)
}

TEST(TraceFilters, BadValuesAreInputErrors) {
  auto jobs = sample_jobs();
  TraceFilter f;
  f.arrival_scale = 0;
  EXPECT_THROW(apply_trace_filter(jobs, f, "t"), InputError);
  f = TraceFilter{};
  f.from_s = 10;
  f.to_s = 10;
  EXPECT_THROW(apply_trace_filter(jobs, f, "t"), InputError);
  EXPECT_THROW(status_filter_from_string("drop"), InputError);
  EXPECT_THROW(failed_jobs_from_string("keep"), InputError);
}

TEST(JobPreparation, FailedJobsDropListsEveryDroppedJob) {
  auto jobs = sample_jobs();
  std::vector<TraceIssue> skipped;
  JobPreparation prep;
  prep.failed_jobs = FailedJobs::Drop;
  prepare_jobs(jobs, skipped, "t.jsonl", prep, nullptr);
  EXPECT_EQ(ids(jobs), (std::vector<std::string>{"a", "d", "e"}));
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].message(), "t.jsonl:0: job 'b' dropped by --failed-jobs drop: status failed");
  // The default runs them for their recorded time.
  jobs = sample_jobs();
  skipped.clear();
  prepare_jobs(jobs, skipped, "t", JobPreparation{}, nullptr);
  EXPECT_EQ(jobs.size(), 5u);
  EXPECT_TRUE(skipped.empty());
}

TEST(JobPreparation, WithAClusterEveryKeptJobGetsWork) {
  auto jobs = sample_jobs();
  std::vector<TraceIssue> skipped;
  JobPreparation prep;
  prep.filter.max_gpus = 4;
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  prepare_jobs(jobs, skipped, "t", prep, &cluster);
  ASSERT_EQ(jobs.size(), 3u);
  for (const auto& j : jobs) {
    EXPECT_FALSE(j.model.empty()) << j.id;
    EXPECT_GT(j.iterations, 0) << j.id;
  }
}

const char* kRules = R"({"buckets": [
  {"max_gpu_hours": 1, "max_gpus": 1, "models": ["ncf"]},
  {"max_gpu_hours": 1, "models": ["cifar10"]},
  {"max_gpu_hours": 50, "models": ["bert", "deepspeech2"]},
  {"models": ["imagenet"]}]})";

TEST(ModelRules, FirstFittingBucketGivesTheModel) {
  const ModelRules rules = parse_model_rules(kRules, "rules.json", ModelCatalog::builtin());
  ASSERT_EQ(rules.buckets.size(), 4u);
  EXPECT_EQ(rules.model_for(0.5, 1, 1, "x"), "ncf");
  EXPECT_EQ(rules.model_for(0.5, 2, 1, "x"), "cifar10");
  const std::string at_one_hour = rules.model_for(1.0, 1, 1, "x");  // 1 GPU-h is past the first buckets' max
  EXPECT_TRUE(at_one_hour == "bert" || at_one_hour == "deepspeech2") << at_one_hour;
  EXPECT_EQ(rules.model_for(50, 1, 1, "x"), "imagenet");  // max is exclusive
  // Both options of a two-model bucket occur, and the choice is stable per (seed, id).
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) seen.insert(rules.model_for(5, 1, 7, "job" + std::to_string(i)));
  EXPECT_EQ(seen, (std::set<std::string>{"bert", "deepspeech2"}));
  EXPECT_EQ(rules.model_for(5, 1, 7, "job3"), rules.model_for(5, 1, 7, "job3"));

  std::vector<JobSpec> jobs = sample_jobs();
  jobs[0].model = "yolov3";  // a model already given is kept
  assign_models_by_rules(jobs, rules, 1);
  EXPECT_EQ(jobs[0].model, "yolov3");
  EXPECT_EQ(jobs[1].model, "cifar10");  // 200 s x 2 GPUs = 0.11 GPU-h, 2 GPUs
}

TEST(ModelRules, ErrorsNameTheFileAndTheJsonPath) {
  auto message = [](const std::string& text) {
    try {
      parse_model_rules(text, "r.json", ModelCatalog::builtin());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(R"({"buckets": [{"models": ["resnet"]}]})"),
            "r.json: buckets[0].models[0]: unknown model 'resnet'");
  EXPECT_EQ(message(R"({"buckets": [{"max_gpu_hours": 1, "models": ["ncf"]}]})").substr(0, 20),
            "r.json: buckets[0]: ");
  EXPECT_EQ(message(R"({"buckets": [{"max_gpu_hour": 1, "models": ["ncf"]}]})").substr(0, 41),
            "r.json: buckets[0].max_gpu_hour: unknown ");
  EXPECT_EQ(message(R"({"buckets": [{"max_gpu_hours": -1, "models": ["ncf"]}, {"models": ["ncf"]}]})"),
            "r.json: buckets[0].max_gpu_hours: must be a positive number");
  EXPECT_NE(message("{").find("r.json: invalid JSON"), std::string::npos);
  EXPECT_EQ(message(R"({"buckets": []})"), "r.json: buckets: must be a non-empty array");
}

}  // namespace
}  // namespace vnsim
