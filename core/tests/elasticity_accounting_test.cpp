// Inputs and outputs of elasticity, spot capacity, cost and energy: the
// cluster spec's "elasticity" block and "spot" flag, the catalog's power and
// prices, and summary.json's cost/energy/revocations blocks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cluster_spec_fixture.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_record.hpp"

namespace vnsim {
namespace {

using nlohmann::json;

std::string parse_error(const json& spec) {
  try {
    parse_cluster_spec(spec.dump(), "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ElasticitySpec, DefaultsWhenAbsent) {
  const ClusterSpec s = parse_cluster_spec(testing::base_spec().dump(), "t.json");
  EXPECT_EQ(s.elasticity.storage_bandwidth_Bps, 1.25e9);  // 10 Gbit/s
  EXPECT_EQ(s.elasticity.restart_delay_s, 30.0);
  EXPECT_EQ(s.elasticity.communicator_setup_s, 1.0);
  EXPECT_EQ(s.elasticity.restart_delay_for("bert"), 30.0);
  EXPECT_FALSE(s.racks[0].nodes[0].spot);
}

TEST(ElasticitySpec, ParsesUnitsOverridesAndSpotNodes) {
  json j = testing::base_spec();
  j["elasticity"] = {{"storage_bandwidth_gbps", 16},
                     {"restart_delay_s", 60},
                     {"communicator_setup_s", 0.5},
                     {"restart_delay_by_model_s", {{"bert", 250}}}};
  j["racks"][0]["nodes"][1]["spot"] = true;
  const ClusterSpec s = parse_cluster_spec(j.dump(), "t.json");
  EXPECT_EQ(s.elasticity.storage_bandwidth_Bps, 2e9);  // 16 Gbit/s = 2 GB/s
  EXPECT_EQ(s.elasticity.restart_delay_for("bert"), 250.0);
  EXPECT_EQ(s.elasticity.restart_delay_for("resnet50"), 60.0);
  EXPECT_EQ(s.elasticity.communicator_setup_s, 0.5);
  EXPECT_FALSE(s.racks[0].nodes[0].spot);
  EXPECT_TRUE(s.racks[0].nodes[1].spot);
}

TEST(ElasticitySpec, BadValuesNameTheField) {
  json j = testing::base_spec();
  j["elasticity"] = {{"storage_bandwidth_gbps", 0}};
  EXPECT_NE(parse_error(j).find("elasticity.storage_bandwidth_gbps"), std::string::npos) << parse_error(j);
  j["elasticity"] = {{"restart_delay_s", -1}};
  EXPECT_NE(parse_error(j).find("elasticity.restart_delay_s"), std::string::npos) << parse_error(j);
  j["elasticity"] = {{"restart_delay_by_model_s", {{"bert", -5}}}};
  EXPECT_NE(parse_error(j).find("elasticity.restart_delay_by_model_s.bert"), std::string::npos)
      << parse_error(j);
  j["elasticity"] = {{"checkpoint_every", 5}};
  EXPECT_NE(parse_error(j).find("checkpoint_every"), std::string::npos) << parse_error(j);
  j = testing::base_spec();
  j["racks"][0]["nodes"][0]["spot"] = "yes";
  EXPECT_NE(parse_error(j).find("spot"), std::string::npos) << parse_error(j);
}

TEST(GpuCatalogAccounting, BuiltinTypesHavePowerAndPrices) {
  // Values of scripts/derive_gpu_catalog.py: V100 SXM2 board power 300 W,
  // idle 15 % of it; AWS p3.2xlarge 3.06 $/h, spot 30 % of it.
  const GpuType& v100 = GpuCatalog::builtin().at("V100");
  EXPECT_EQ(v100.busy_watts, 300.0);
  EXPECT_EQ(v100.idle_watts, 45.0);
  EXPECT_EQ(v100.usd_per_gpu_hour, 3.06);
  EXPECT_NEAR(v100.spot_usd_per_gpu_hour, 0.918, 1e-12);
  for (const std::string& name : GpuCatalog::builtin().names()) {
    const GpuType& t = GpuCatalog::builtin().at(name);
    EXPECT_GT(t.busy_watts, t.idle_watts) << name;
    EXPECT_GT(t.usd_per_gpu_hour, t.spot_usd_per_gpu_hour) << name;
  }
}

TEST(GpuCatalogAccounting, PowerAndPricesAreOptionalButMustBePositive) {
  const GpuCatalog without = GpuCatalog::parse(
      R"({"reference": "X", "types": {"X": {"memory_gib": 16, "peak_tflops": 10, "relative_speed": 1}}})",
      "c");
  EXPECT_EQ(without.at("X").busy_watts, 0.0);
  EXPECT_THROW(GpuCatalog::parse(R"({"reference": "X", "types": {"X": {"memory_gib": 16, "peak_tflops": 10,
                                     "relative_speed": 1, "idle_watts": -3}}})",
                                 "c"),
               InputError);
}

std::string temp_path(const std::string& file) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("vnsim-usage-") + info->name() + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / file).string();
}

TEST(SummaryJsonUsage, CostEnergyAndRevocationsPerGpuType) {
  JobRecord a;
  a.id = "a";
  a.start_s = 0;
  a.finish_s = 3600;
  a.state = FinalState::Completed;
  a.gpu_seconds = 7200;
  RunInfo info;
  info.total_gpus = 4;
  GpuTypeUsage t;
  t.type = "V100";
  t.gpus = 4;
  t.on_demand_busy_gpu_s = 3600;
  t.spot_busy_gpu_s = 3600;
  t.idle_gpu_s = 3600;
  t.down_gpu_s = 3600;
  t.cost_usd = 3.06 + 0.918;
  t.busy_energy_j = 300 * 7200;
  t.idle_energy_j = 45 * 3600;
  info.usage.per_type.push_back(t);
  info.usage.node_events = 2;
  info.usage.jobs_revoked = 1;
  info.usage.lost_work_s = 12.5;
  const std::string path = temp_path("summary.json");
  write_summary_json(path, {a}, info);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const json s = json::parse(text.str());
  EXPECT_DOUBLE_EQ(s["cost_usd"]["total"].get<double>(), 3.978);
  EXPECT_DOUBLE_EQ(s["cost_usd"]["per_gpu_type"]["V100"]["spot_gpu_hours"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(s["energy_j"]["total"].get<double>(), 300 * 7200 + 45 * 3600);
  EXPECT_DOUBLE_EQ(s["energy_j"]["per_gpu_type"]["V100"]["down_gpu_hours"].get<double>(), 1);
  EXPECT_EQ(s["revocations"]["jobs_revoked"], 1);
  EXPECT_DOUBLE_EQ(s["revocations"]["lost_work_s"].get<double>(), 12.5);
}

TEST(SummaryJsonUsage, AbsentWithoutAccounting) {
  const std::string path = temp_path("summary.json");
  write_summary_json(path, {}, RunInfo{});
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const json s = json::parse(text.str());
  EXPECT_FALSE(s.contains("cost_usd"));
  EXPECT_FALSE(s.contains("energy_j"));
}

}  // namespace
}  // namespace vnsim
