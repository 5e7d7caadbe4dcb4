// Every validation rule of the cluster spec parser, each with the exact
// message and JSON path it must produce.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_spec_fixture.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

using nlohmann::json;
using testing::base_spec;

std::string error_of_text(const std::string& text) {
  try {
    parse_cluster_spec(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
std::string error_of(const json& j) {
  return error_of_text(j.dump());
}

TEST(ClusterSpecErrors, MalformedJsonGivesPosition) {
  const std::string msg = error_of_text("{\"name\": \"t\",\n \"racks\": [}\n");
  EXPECT_EQ(msg.rfind("t.json: invalid JSON (byte ", 0), 0u) << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  const std::string overflow = error_of_text(R"({"name": "t", "link_efficiency": 1e999, "racks": []})");
  EXPECT_EQ(overflow.rfind("t.json: invalid JSON: ", 0), 0u) << overflow;
  EXPECT_NE(overflow.find("1e999"), std::string::npos) << overflow;
}

TEST(ClusterSpecErrors, DuplicateKeyIsNotSilentlyDropped) {
  std::string text = base_spec().dump();
  const std::string from = "\"gpus\":2";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"gpus\":2,\"gpus\":3");
  EXPECT_EQ(error_of_text(text), "t.json: racks[0].nodes[1].gpus: key appears twice in the same object");
}

TEST(ClusterSpecErrors, RootMustBeAnObject) {
  EXPECT_EQ(error_of_text("[1]"), "t.json: (top level): must be a JSON object, got [1]");
}

TEST(ClusterSpecErrors, ZeroGpus) {
  json j = base_spec();
  j["racks"][0]["nodes"][1]["gpus"] = 0;
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[1].gpus: must be a positive integer, got 0");
  j["racks"][0]["nodes"][1]["gpus"] = 2.5;
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[1].gpus: must be a positive integer, got 2.5");
  j["racks"][0]["nodes"][1]["gpus"] = "2";
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[1].gpus: must be a positive integer, got \"2\"");
}

TEST(ClusterSpecErrors, NonPositiveBandwidthsAndCounts) {
  json j = base_spec();
  j["defaults"]["nic"]["bandwidth_gbps"] = 0;
  EXPECT_EQ(error_of(j), "t.json: defaults.nic.bandwidth_gbps: must be a positive number, got 0");
  j = base_spec();
  j["racks"][1]["nodes"][0]["intra"]["bandwidth_gbps"] = -5;
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes[0].intra.bandwidth_gbps: must be a positive number, got -5");
  j = base_spec();
  j["racks"][1]["nodes"][0]["nic"]["count"] = 0;
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes[0].nic.count: must be a positive integer, got 0");
  j = base_spec();
  j["racks"][1]["oversubscription"] = 0;
  EXPECT_EQ(error_of(j), "t.json: racks[1].oversubscription: must be a positive number, got 0");
  j = base_spec();
  j["racks"][0]["nodes"][0]["count"] = 0;
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0].count: must be a positive integer, got 0");
  j["racks"][0]["nodes"][0]["count"] = 2000000;
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0].count: cluster would exceed 1000000 nodes");
}

TEST(ClusterSpecErrors, NegativeLatencies) {
  json j = base_spec();
  j["racks"][1]["uplink_latency_us"] = -1;
  EXPECT_EQ(error_of(j), "t.json: racks[1].uplink_latency_us: must be a non-negative number, got -1");
  j = base_spec();
  j["spine"] = {{"latency_us", -0.5}};
  EXPECT_EQ(error_of(j), "t.json: spine.latency_us: must be a non-negative number, got -0.5");
  j = base_spec();
  j["defaults"]["intra"]["latency_us"] = -2;
  EXPECT_EQ(error_of(j), "t.json: defaults.intra.latency_us: must be a non-negative number, got -2");
}

TEST(ClusterSpecErrors, LinkEfficiencyRange) {
  json j = base_spec();
  j["link_efficiency"] = 1.5;
  EXPECT_EQ(error_of(j), "t.json: link_efficiency: must be in (0, 1], got 1.5");
  j["link_efficiency"] = 0;
  EXPECT_EQ(error_of(j), "t.json: link_efficiency: must be a positive number, got 0");
}

TEST(ClusterSpecErrors, UnknownFields) {
  json j = base_spec();
  j["rakcs"] = json::array();
  EXPECT_EQ(error_of(j).rfind("t.json: rakcs: unknown field (allowed here: name, description, ", 0), 0u)
      << error_of(j);
  j = base_spec();
  j["racks"][0]["nodes"][1]["gpu"] = 1;
  EXPECT_EQ(error_of(j).rfind("t.json: racks[0].nodes[1].gpu: unknown field", 0), 0u) << error_of(j);
  j = base_spec();
  j["defaults"]["nic"]["bandwidth"] = 1;
  EXPECT_EQ(error_of(j).rfind("t.json: defaults.nic.bandwidth: unknown field", 0), 0u) << error_of(j);
}

TEST(ClusterSpecErrors, MissingRequiredFields) {
  json j = base_spec();
  j.erase("name");
  EXPECT_EQ(error_of(j), "t.json: name: required field is missing");
  j = base_spec();
  j.erase("racks");
  EXPECT_EQ(error_of(j), "t.json: racks: required field is missing");
  j = base_spec();
  j["racks"][1].erase("name");
  EXPECT_EQ(error_of(j), "t.json: racks[1].name: required field is missing");
  j = base_spec();
  j["racks"][0]["nodes"][0].erase("gpus");
  EXPECT_EQ(error_of(j),
            "t.json: racks[0].nodes[0].gpus: required field is missing (give it here or in defaults.gpus)");
  j = base_spec();
  j["racks"][0]["nodes"][0].erase("gpu_type");
  EXPECT_EQ(
      error_of(j),
      "t.json: racks[0].nodes[0].gpu_type: required field is missing (give it here or in defaults.gpu_type)");
  j = base_spec();
  j["defaults"]["intra"].erase("bandwidth_gbps");
  EXPECT_EQ(error_of(j),
            "t.json: racks[0].nodes[0].intra.bandwidth_gbps: required field is missing "
            "(give it here or in defaults.intra.bandwidth_gbps)");
  j = base_spec();
  j.erase("defaults");
  EXPECT_EQ(error_of(j),
            "t.json: racks[0].nodes[0].intra.kind: required field is missing (give it here or in "
            "defaults.intra.kind)");
  j = base_spec();
  j["racks"][0]["nodes"][0].erase("name");
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0]: give exactly one of \"name\" and \"name_prefix\"");
  j["racks"][0]["nodes"][0]["name"] = "x";
  j["racks"][0]["nodes"][0]["name_prefix"] = "x";
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0]: give exactly one of \"name\" and \"name_prefix\"");
}

TEST(ClusterSpecErrors, EmptyArrays) {
  json j = base_spec();
  j["racks"] = json::array();
  EXPECT_EQ(error_of(j), "t.json: racks: must be a non-empty array of racks");
  j = base_spec();
  j["racks"][1]["nodes"] = json::array();
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes: must be a non-empty array of nodes");
  j = base_spec();
  j["racks"][1]["nodes"][0]["gpu_types"] = json::array();
  EXPECT_EQ(error_of(j),
            "t.json: racks[1].nodes[0].gpu_types: must be a non-empty array of GPU type names, got []");
}

TEST(ClusterSpecErrors, DuplicateNames) {
  json j = base_spec();
  j["racks"][1]["name"] = "ra";
  EXPECT_EQ(error_of(j), "t.json: racks[1].name: name 'ra' is already used at racks[0].name");
  j = base_spec();
  j["racks"][1]["nodes"][0]["name"] = "a1";
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes[0]: name 'a1' is already used at racks[0].nodes[1]");
  j = base_spec();
  j["racks"][0]["nodes"][0]["name"] = "rb";  // a node may not share a rack's name either
  EXPECT_EQ(error_of(j), "t.json: racks[1].name: name 'rb' is already used at racks[0].nodes[0]");
  j = base_spec();
  j["racks"][0]["nodes"][0]["count"] = 3;
  j["racks"][0]["nodes"][1]["name"] = "a0-2";
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[1]: name 'a0-2' is already used at racks[0].nodes[0]");
}

TEST(ClusterSpecErrors, UnknownGpuTypes) {
  json j = base_spec();
  j["racks"][0]["nodes"][0]["gpu_type"] = "V200";
  EXPECT_EQ(error_of(j).rfind("t.json: racks[0].nodes[0].gpu_type: unknown GPU type 'V200' (known: ", 0), 0u)
      << error_of(j);
  j = base_spec();
  j["racks"][1]["nodes"][0]["gpu_types"][1] = "t4";
  EXPECT_EQ(error_of(j).rfind("t.json: racks[1].nodes[0].gpu_types[1]: unknown GPU type 't4'", 0), 0u)
      << error_of(j);
  j = base_spec();
  j["defaults"]["gpu_type"] = "Z1";
  EXPECT_EQ(error_of(j).rfind("t.json: defaults.gpu_type: unknown GPU type 'Z1'", 0), 0u) << error_of(j);
}

TEST(ClusterSpecErrors, InconsistentNodeFields) {
  json j = base_spec();
  j["racks"][1]["nodes"][0]["gpus"] = 2;
  EXPECT_EQ(error_of(j),
            "t.json: racks[1].nodes[0].gpu_types: give either gpu_types or gpus + gpu_type, not both");
  j = base_spec();
  j["racks"][1]["nodes"][0]["intra"]["kind"] = "infiniband";
  EXPECT_EQ(error_of(j),
            "t.json: racks[1].nodes[0].intra.kind: must be \"nvlink\" or \"pcie\", got \"infiniband\"");
  j = base_spec();
  j["racks"][0]["nodes"][0]["nic"] = 100;
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0].nic: must be a JSON object, got 100");
}

// Specs built in code skip the parser; Cluster still refuses broken ones.
}  // namespace
}  // namespace vnsim
