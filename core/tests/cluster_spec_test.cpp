// Cluster spec parsing: presets, units, defaults, and an error message with
// the JSON path for each validation rule.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "shared_data.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

using nlohmann::json;

// Two racks exercising defaults, per-node overrides and per-GPU types.
json base_spec() {
  return R"({
    "name": "t",
    "defaults": {
      "intra": {"kind": "nvlink", "bandwidth_gbps": 800, "latency_us": 0.5},
      "nic": {"bandwidth_gbps": 100, "latency_us": 2}
    },
    "racks": [
      {"name": "ra", "nodes": [
        {"name": "a0", "gpus": 4, "gpu_type": "V100"},
        {"name": "a1", "gpus": 2, "gpu_type": "T4"}]},
      {"name": "rb", "oversubscription": 4, "uplink_latency_us": 3, "nodes": [
        {"name": "b0", "gpu_types": ["A100", "T4"],
         "intra": {"kind": "pcie", "bandwidth_gbps": 64}, "nic": {"count": 2}}]}
    ]
  })"_json;
}

std::string error_of_text(const std::string& text) {
  try {
    parse_cluster_spec(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
std::string error_of(const json& j) { return error_of_text(j.dump()); }

std::string temp_path(const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return (std::filesystem::temp_directory_path() /
          ("vnsim-" + std::string(info->name()) + "-" + std::to_string(::getpid()) + "-" + tag))
      .string();
}

TEST(ClusterSpec, ConvertsUnitsAndAppliesDefaults) {
  const ClusterSpec s = parse_cluster_spec(base_spec().dump(), "t.json");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.link_efficiency, 1.0);
  EXPECT_EQ(s.spine_latency_s, 0.0);
  ASSERT_EQ(s.racks.size(), 2u);
  const RackSpec& ra = s.racks[0];
  EXPECT_EQ(ra.oversubscription, 1.0);
  EXPECT_EQ(ra.uplink_latency_s, 0.0);
  ASSERT_EQ(ra.nodes.size(), 2u);
  const NodeSpec& a0 = ra.nodes[0];
  EXPECT_EQ(a0.gpu_types, std::vector<std::string>(4, "V100"));
  EXPECT_EQ(a0.intra.kind, IntraLinkKind::NVLink);
  EXPECT_DOUBLE_EQ(a0.intra.bandwidth_Bps, 100e9);  // 800 Gbit/s = 100 GB/s
  EXPECT_DOUBLE_EQ(a0.intra.latency_s, 0.5e-6);
  EXPECT_DOUBLE_EQ(a0.nic_bandwidth_Bps, 12.5e9);  // 100 Gbit/s
  EXPECT_EQ(a0.nic_count, 1);
  EXPECT_DOUBLE_EQ(a0.nic_latency_s, 2e-6);

  const RackSpec& rb = s.racks[1];
  EXPECT_EQ(rb.oversubscription, 4.0);
  EXPECT_DOUBLE_EQ(rb.uplink_latency_s, 3e-6);
  const NodeSpec& b0 = rb.nodes[0];
  EXPECT_EQ(b0.gpu_types, (std::vector<std::string>{"A100", "T4"}));
  // Overridden fields come from the node, the rest still from defaults.
  EXPECT_EQ(b0.intra.kind, IntraLinkKind::PCIe);
  EXPECT_DOUBLE_EQ(b0.intra.bandwidth_Bps, 8e9);
  EXPECT_DOUBLE_EQ(b0.intra.latency_s, 0.5e-6);
  EXPECT_EQ(b0.nic_count, 2);
  EXPECT_DOUBLE_EQ(b0.nic_bandwidth_Bps, 12.5e9);
}

TEST(ClusterSpec, TopLevelOptionsAndBuiltinDefaults) {
  const ClusterSpec s = parse_cluster_spec(R"({
    "name": "x", "description": "d", "link_efficiency": 0.8, "spine": {"latency_us": 4},
    "racks": [{"name": "r", "nodes": [{"name": "n", "gpus": 1, "gpu_type": "K80",
      "intra": {"kind": "pcie", "bandwidth_gbps": 8}, "nic": {"bandwidth_gbps": 16}}]}]})",
                                           "x.json");
  EXPECT_DOUBLE_EQ(s.link_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(s.spine_latency_s, 4e-6);
  const NodeSpec& n = s.racks[0].nodes[0];
  EXPECT_EQ(n.intra.latency_s, 0.0);
  EXPECT_EQ(n.nic_latency_s, 0.0);
  EXPECT_EQ(n.nic_count, 1);
  EXPECT_DOUBLE_EQ(n.intra.bandwidth_Bps, 1e9);
  EXPECT_DOUBLE_EQ(n.nic_bandwidth_Bps, 2e9);
}

TEST(ClusterSpec, CountExpandsNamedAndPrefixedNodes) {
  json j = base_spec();
  j["racks"][0]["nodes"] = R"([{"name": "big", "count": 3, "gpus": 8, "gpu_type": "H100"},
                               {"name_prefix": "s", "count": 2, "gpus": 1, "gpu_type": "T4"}])"_json;
  const ClusterSpec s = parse_cluster_spec(j.dump(), "t.json");
  std::vector<std::string> names;
  for (const NodeSpec& n : s.racks[0].nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"big-0", "big-1", "big-2", "s0", "s1"}));
  EXPECT_EQ(s.racks[0].nodes[2].gpu_types.size(), 8u);
  EXPECT_EQ(s.racks[0].nodes[4].gpu_types, std::vector<std::string>{"T4"});
}

TEST(ClusterSpec, PresetNames) {
  EXPECT_EQ(cluster_preset_names(), (std::vector<std::string>{"dgx-h100", "philly-2017", "testbed"}));
}

TEST(ClusterSpec, PhillyPresetHas552MachinesAnd2490Gpus) {
  const Cluster c(load_cluster_spec("philly-2017"));
  EXPECT_EQ(c.node_count(), 552);
  EXPECT_EQ(c.gpu_count(), 2490);
  EXPECT_EQ(c.rack_count(), 35);  // ceil(552 / 16)
  std::map<std::pair<int, std::string>, int> shapes;
  for (const NodeInfo& n : c.nodes()) ++shapes[{n.gpu_count, c.gpu(n.first_gpu).type}];
  EXPECT_EQ(shapes, (std::map<std::pair<int, std::string>, int>{{{2, "K80"}, 321}, {{8, "P40"}, 231}}));
  EXPECT_EQ(c.node(0).name, "m0");
  for (const RackSpec& r : c.spec().racks) {
    EXPECT_LE(r.nodes.size(), 16u);
    EXPECT_EQ(r.oversubscription, 2.0);
  }
  const NodeSpec& n = c.node_spec(0);
  EXPECT_EQ(n.intra.kind, IntraLinkKind::PCIe);
  EXPECT_DOUBLE_EQ(n.intra.bandwidth_Bps, 126e9 / 8);
  EXPECT_DOUBLE_EQ(n.nic_bandwidth_Bps, 12.5e9);
}

// The preset must be exactly the machine list, in file order.
TEST(ClusterSpec, PhillyPresetMatchesMachineList) {
  VNSIM_REQUIRE_SHARED(dir);
  std::ifstream in(dir + "/traces/philly_2017_machine_list_552.csv");
  ASSERT_TRUE(in) << "cannot open the machine list";
  std::string line;
  std::getline(in, line);  // header
  const Cluster c(load_cluster_spec("philly-2017"));
  NodeId n = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream row(line);
    std::string id, gpus, mem;
    std::getline(row, id, ',');
    std::getline(row, gpus, ',');
    std::getline(row, mem, ',');
    ASSERT_LT(n, c.node_count());
    EXPECT_EQ(c.node(n).name, id);
    EXPECT_EQ(c.node(n).gpu_count, std::stoi(gpus));
    EXPECT_EQ(c.gpu(c.node(n).first_gpu).type, mem.find("24GB") != std::string::npos ? "P40" : "K80");
    ++n;
  }
  EXPECT_EQ(n, c.node_count());
}

TEST(ClusterSpec, DgxH100Preset) {
  const Cluster c(load_cluster_spec("dgx-h100"));
  EXPECT_EQ(c.rack_count(), 4);
  EXPECT_EQ(c.node_count(), 16);
  EXPECT_EQ(c.gpu_count(), 128);
  EXPECT_EQ(c.gpu_types(), std::vector<std::string>{"H100"});
  EXPECT_EQ(c.node(5).name, "r1n1");
  const NodeSpec& n = c.node_spec(5);
  EXPECT_EQ(n.intra.kind, IntraLinkKind::NVLink);
  EXPECT_DOUBLE_EQ(n.intra.bandwidth_Bps, 450e9);  // NVLink4: 900 GB/s bidirectional per GPU
  EXPECT_DOUBLE_EQ(n.nic_bandwidth_Bps, 50e9);     // 400 Gbit/s
  EXPECT_EQ(n.nic_count, 8);
  EXPECT_EQ(c.spec().racks[3].oversubscription, 1.0);
}

TEST(ClusterSpec, TestbedPreset) {
  const Cluster c(load_cluster_spec("testbed"));
  EXPECT_EQ(c.rack_count(), 2);
  EXPECT_EQ(c.node_count(), 4);
  EXPECT_EQ(c.gpu_count(), 16);
  EXPECT_EQ(c.gpu_count_of_type("V100"), 16);
  EXPECT_DOUBLE_EQ(c.node_spec(3).intra.bandwidth_Bps, 150e9);
  EXPECT_EQ(c.spec().racks[1].oversubscription, 2.0);
}

TEST(ClusterSpec, LoadsFileAndNamesItInErrors) {
  const std::string path = temp_path("spec.json");
  std::ofstream(path) << base_spec().dump(2);
  EXPECT_EQ(load_cluster_spec(path).racks.size(), 2u);
  EXPECT_EQ(load_cluster_spec_file(path).name, "t");
  std::ofstream(path) << "{\n  \"name\": \"t\",\n  \"racks\": [\n";
  try {
    load_cluster_spec(path);
    ADD_FAILURE() << "truncated JSON accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ": invalid JSON", 0), 0u) << msg;
    EXPECT_NE(msg.find("line 4"), std::string::npos) << msg;
  }
  std::filesystem::remove(path);
}

TEST(ClusterSpec, UnknownPresetOrMissingFile) {
  try {
    load_cluster_spec("no-such-cluster");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "cluster 'no-such-cluster': not a preset (dgx-h100, philly-2017, testbed) and no such file");
  }
  EXPECT_THROW(load_cluster_spec_file(temp_path("missing.json")), InputError);
}

TEST(ClusterSpecErrors, MalformedJsonGivesPosition) {
  const std::string msg = error_of_text("{\"name\": \"t\",\n \"racks\": [}\n");
  EXPECT_EQ(msg.rfind("t.json: invalid JSON (byte ", 0), 0u) << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
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
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0].gpus: required field is missing (give it here or in defaults.gpus)");
  j = base_spec();
  j["racks"][0]["nodes"][0].erase("gpu_type");
  EXPECT_EQ(error_of(j),
            "t.json: racks[0].nodes[0].gpu_type: required field is missing (give it here or in defaults.gpu_type)");
  j = base_spec();
  j["defaults"]["intra"].erase("bandwidth_gbps");
  EXPECT_EQ(error_of(j),
            "t.json: racks[0].nodes[0].intra.bandwidth_gbps: required field is missing "
            "(give it here or in defaults.intra.bandwidth_gbps)");
  j = base_spec();
  j.erase("defaults");
  EXPECT_EQ(error_of(j),
            "t.json: racks[0].nodes[0].intra.kind: required field is missing (give it here or in defaults.intra.kind)");
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
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes[0].gpu_types: must be a non-empty array of GPU type names, got []");
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
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes[0].gpu_types: give either gpu_types or gpus + gpu_type, not both");
  j = base_spec();
  j["racks"][1]["nodes"][0]["intra"]["kind"] = "infiniband";
  EXPECT_EQ(error_of(j), "t.json: racks[1].nodes[0].intra.kind: must be \"nvlink\" or \"pcie\", got \"infiniband\"");
  j = base_spec();
  j["racks"][0]["nodes"][0]["nic"] = 100;
  EXPECT_EQ(error_of(j), "t.json: racks[0].nodes[0].nic: must be a JSON object, got 100");
}

// Specs built in code skip the parser; Cluster still refuses broken ones.
TEST(ClusterStructure, RejectsClashingNamesAndEmptyNodes) {
  ClusterSpec s = parse_cluster_spec(base_spec().dump(), "t.json");
  s.racks[1].nodes[0].name = "ra";
  try {
    Cluster c(s);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'ra'"), std::string::npos) << e.what();
  }
  s = parse_cluster_spec(base_spec().dump(), "t.json");
  s.racks[0].nodes[1].gpu_types.clear();
  EXPECT_THROW(Cluster{s}, InputError);
}

TEST(ClusterStructure, FlattensInRackNodeGpuOrder) {
  const Cluster c(parse_cluster_spec(base_spec().dump(), "t.json"));
  ASSERT_EQ(c.gpu_count(), 8);
  ASSERT_EQ(c.node_count(), 3);
  EXPECT_EQ(c.node(1).first_gpu, 4);
  EXPECT_EQ(c.node(2).first_gpu, 6);
  EXPECT_EQ(c.node(2).rack, 1);
  EXPECT_EQ(c.node(2).name, "b0");
  const GpuInfo& g7 = c.gpu(7);
  EXPECT_EQ(g7.node, 2);
  EXPECT_EQ(g7.rack, 1);
  EXPECT_EQ(g7.local_index, 1);
  EXPECT_EQ(g7.type, "T4");
  EXPECT_EQ(c.node_spec(1).name, "a1");
  EXPECT_EQ(c.node_spec(2).name, "b0");
  EXPECT_EQ(c.gpu_types(), (std::vector<std::string>{"A100", "T4", "V100"}));
  EXPECT_EQ(c.gpu_count_of_type("T4"), 3);
  EXPECT_EQ(c.gpu_count_of_type("H100"), 0);
  EXPECT_EQ(c.max_gpus_per_node(), 4);
}

}  // namespace
}  // namespace vnsim
