#include "vnsim/real_exec/validation.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/real_exec/calibration.hpp"

namespace vnsim::real_exec {
namespace {

namespace fs = std::filesystem;

TEST(Validation, RelativeErrorsByHand) {
  // Predicted 101..110 against 100: errors 0.01 .. 0.10. Mean 0.055; the
  // 90th percentile by nearest rank is the 9th smallest, 0.09.
  std::vector<std::pair<double, double>> pairs;
  for (int i = 1; i <= 10; ++i) pairs.emplace_back(100 + i, 100);
  const ErrorStats s = relative_errors(pairs);
  EXPECT_EQ(s.count, 10u);
  EXPECT_NEAR(s.mape, 0.055, 1e-12);
  EXPECT_NEAR(s.p90, 0.09, 1e-12);
  EXPECT_NEAR(s.max, 0.10, 1e-12);
  EXPECT_NEAR(s.mean_signed, 0.055, 1e-12);
}

TEST(Validation, UnderPredictionsCountAsErrorsAndZeroMeasurementsAreSkipped) {
  // (90, 100): -0.1; (150, 100): +0.5; (5, 0) has no relative error.
  const ErrorStats s = relative_errors({{90, 100}, {150, 100}, {5, 0}});
  EXPECT_EQ(s.count, 2u);
  EXPECT_NEAR(s.mape, 0.3, 1e-12);
  EXPECT_NEAR(s.mean_signed, 0.2, 1e-12);
  EXPECT_NEAR(s.max, 0.5, 1e-12);
}

TEST(Validation, SegmentsCompareTheirMedianStepAndReportTheStepNoiseFloor) {
  // Segment a: predicted 10 every step, measured 8, 10, 12, 40 (median 11):
  // error |10 - 11| / 11; floor (3/8 + 1/10 + 1/12 + 29/40) / 4. Segment b:
  // predicted 5, measured 4 and 0 (the 0 is left out): error 1/4, floor 0.
  std::map<SegmentKey, std::vector<std::pair<double, double>>> by_segment;
  by_segment[{"a", 0}] = {{10, 8}, {10, 10}, {10, 12}, {10, 40}};
  by_segment[{"b", 1}] = {{5, 4}, {5, 0}};
  const SegmentStats s = segment_errors(by_segment);
  EXPECT_EQ(s.segments, 2u);
  EXPECT_NEAR(s.median_mape, (1.0 / 11 + 0.25) / 2, 1e-12);
  EXPECT_NEAR(s.median_max, 0.25, 1e-12);
  EXPECT_NEAR(s.noise_floor_mape, (3.0 / 8 + 0.1 + 1.0 / 12 + 29.0 / 40 + 0) / 5, 1e-12);
  // A segment with no positive measurement is no segment.
  by_segment[{"c", 0}] = {{1, 0}};
  EXPECT_EQ(segment_errors(by_segment).segments, 2u);
}

class ValidationRun : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = fs::temp_directory_path() / ("vnsim-validation-" + std::to_string(::getpid()) + ".jsonl");
  }
  void TearDown() override { fs::remove(log_); }
  fs::path write_log(const std::string& text) {
    std::ofstream(log_) << text;
    return log_;
  }
  fs::path log_;
};

TEST_F(ValidationRun, ComparesIterationsWithThePlacementModelAndJctWithTheReplay) {
  // Testbed: 2 workers, hop = 2 links of 2 GB/s, 5 us each. Profile: alpha
  // 0.01 s, beta 0.0002 s/sample, 40000 gradient bytes, no overlap.
  // Placement {0,1}, 1 virtual node each, global batch 100 -> 50 samples:
  //   compute   = 0.01 + 0.0002 * 50                = 0.02 s
  //   allreduce = 2 (N-1) (1e-5 + 40000/2/2e9) = 2 * 2e-5 = 4e-5 s
  //   step      = 0.02004 s
  // Measured steps: #0 is warm-up (skipped), #1 = 0.02004/0.9 (error -0.1),
  // #2 = 0.02004/1.2 (error +0.2): MAPE 0.15, p90 = max = 0.2.
  TestbedLinks links;
  links.workers = 2;
  links.link_bandwidth_Bps = 2e9;
  links.link_latency_s = 5e-6;
  const std::string ref = GpuCatalog::builtin().reference();
  const Cluster cluster(parse_cluster_spec(testbed_cluster_spec_json(links, ref, "test"), "testbed"));
  const Topology topo(cluster);
  CalibratedModel m;
  m.base = ModelCatalog::builtin().at("cifar10");
  m.compute = LineFit{0.01, 0.0002, 0};
  m.gradient_bytes = 40000;
  const ModelCatalog profile = ModelCatalog::parse(model_profile_json({m}, ref), "profile");
  const double step = 0.02004;
  const std::string log =
      R"({"event":"submit","t":0,"job":"a","submit_s":0})"
      "\n"
      R"({"event":"launch","t":0,"job":"a","epoch":0,"gpus":[0,1],"vn_per_gpu":[1,1],"start_iteration":0,"global_batch":100})"
      "\n" +
      std::string(
          R"({"event":"iteration","t":1,"job":"a","epoch":0,"iteration":0,"seconds":1.0,"compute_s":0.9,"allreduce_s":0.1})") +
      "\n" + R"({"event":"iteration","t":2,"job":"a","epoch":0,"iteration":1,"seconds":)" +
      std::to_string(step / 0.9) + R"(,"compute_s":0.02,"allreduce_s":4e-5})" + "\n" +
      R"({"event":"iteration","t":3,"job":"a","epoch":0,"iteration":2,"seconds":)" +
      std::to_string(step / 1.2) + R"(,"compute_s":0.02,"allreduce_s":4e-5})" + "\n" +
      R"({"event":"finish","t":8,"job":"a","epoch":0})" + "\n";
  const MeasuredRun run = read_measurement_log(write_log(log).string());
  ASSERT_EQ(run.iterations.size(), 3u);
  // The replay predicts a JCT of 10 s for a measured 8 s: error +0.25.
  JobRecord predicted;
  predicted.id = "a";
  predicted.submit_s = 0;
  predicted.finish_s = 10;
  const ValidationReport r =
      compare_run(run, {predicted}, topo, GpuCatalog::builtin(), profile, {{"a", "cifar10"}});
  EXPECT_EQ(r.iteration.count, 2u);
  EXPECT_NEAR(r.iteration.mape, 0.15, 1e-5);  // the log keeps 6 significant digits
  EXPECT_NEAR(r.iteration.max, 0.2, 1e-5);
  EXPECT_NEAR(r.compute.mape, 0, 1e-9);
  EXPECT_NEAR(r.allreduce.mape, 0, 1e-9);
  // One segment: its median step (step/0.9 + step/1.2) / 2 against `step`.
  const double median_step = (step / 0.9 + step / 1.2) / 2;
  EXPECT_EQ(r.iteration_segments.segments, 1u);
  EXPECT_NEAR(r.iteration_segments.median_mape, std::abs(step - median_step) / median_step, 1e-5);
  EXPECT_EQ(r.allreduce_segments.segments, 1u);
  EXPECT_NEAR(r.allreduce_segments.median_mape, 0, 1e-9);
  EXPECT_NEAR(r.allreduce_segments.noise_floor_mape, 0, 1e-9);
  EXPECT_EQ(r.jct.count, 1u);
  EXPECT_NEAR(r.jct.mape, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(r.measured_makespan_s, 8);
  EXPECT_DOUBLE_EQ(r.predicted_makespan_s, 10);
}

TEST_F(ValidationRun, MeanJctAndMakespanErrorsOverTheJobsCompletedInBoth) {
  // a: submitted 0, finished 8 (predicted 10); b: submitted 1, finished 3
  // (predicted 4); c never finished on the testbed and is left out.
  // Mean JCT measured (8 + 2) / 2 = 5, predicted (10 + 3) / 2 = 6.5: +30%.
  // Makespan measured 8, predicted 10: +25%.
  const std::string log = R"({"event":"submit","t":0,"job":"a","submit_s":0}
{"event":"submit","t":1,"job":"b","submit_s":1}
{"event":"submit","t":1,"job":"c","submit_s":1}
{"event":"finish","t":3,"job":"b","epoch":0}
{"event":"finish","t":8,"job":"a","epoch":0}
)";
  const MeasuredRun run = read_measurement_log(write_log(log).string());
  std::vector<JobRecord> predicted(3);
  predicted[0].id = "a";
  predicted[0].finish_s = 10;
  predicted[1].id = "b";
  predicted[1].submit_s = 1;
  predicted[1].finish_s = 4;
  predicted[2].id = "c";
  predicted[2].submit_s = 1;
  predicted[2].finish_s = 5;
  const Cluster cluster(load_cluster_spec("testbed"));
  const Topology topo(cluster);
  const ValidationReport r =
      compare_run(run, predicted, topo, GpuCatalog::builtin(), ModelCatalog::builtin(), {}, 1);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].job, "a");
  EXPECT_DOUBLE_EQ(r.measured_mean_jct_s, 5);
  EXPECT_DOUBLE_EQ(r.predicted_mean_jct_s, 6.5);
  EXPECT_NEAR(r.mean_jct_error(), 0.3, 1e-12);
  EXPECT_NEAR(r.makespan_error(), 0.25, 1e-12);
  EXPECT_NEAR(r.to_json()["mean_jct_error"].get<double>(), 0.3, 1e-12);
}

TEST_F(ValidationRun, SampleCsvQuotesJobIds) {
  const fs::path p = log_.string() + ".csv";
  write_job_csv(p.string(), {{"a,\"b\"", 2, 4}});
  std::ifstream in(p);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  fs::remove(p);
  EXPECT_EQ(header, "job,predicted_jct_s,measured_jct_s");
  EXPECT_EQ(row, "\"a,\"\"b\"\"\",2,4");
}

TEST_F(ValidationRun, MalformedLogNamesFileLineAndField) {
  const fs::path p = write_log(
      "{\"event\":\"submit\",\"t\":0,\"job\":\"a\",\"submit_s\":0}\n{\"event\":\"finish\",\"t\":1}\n");
  try {
    read_measurement_log(p.string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(p.string() + ":2"), std::string::npos) << what;
    EXPECT_NE(what.find("'job'"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace vnsim::real_exec
