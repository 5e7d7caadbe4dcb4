// Cluster spec parsing: units, defaults, presets, file loading, and the
// Cluster built from a spec. Validation errors: cluster_spec_errors_test.cpp.
#include "vnsim/core/cluster_spec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cluster_spec_fixture.hpp"
#include "shared_data.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

using nlohmann::json;
using testing::base_spec;

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
  EXPECT_EQ(cluster_preset_names(),
            (std::vector<std::string>{"dgx-h100", "philly-2017", "pollux-16x4", "testbed"}));
}

TEST(ClusterSpec, PolluxPresetIs16NodesOf4T4) {
  const Cluster c(load_cluster_spec("pollux-16x4"));
  EXPECT_EQ(c.node_count(), 16);
  EXPECT_EQ(c.gpu_count(), 64);
  EXPECT_EQ(c.rack_count(), 1);
  EXPECT_EQ(c.gpu(63).type, "T4");
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
    EXPECT_STREQ(
        e.what(),
        "cluster 'no-such-cluster': not a preset (dgx-h100, philly-2017, pollux-16x4, testbed) and no such "
        "file");
  }
  EXPECT_THROW(load_cluster_spec_file(temp_path("missing.json")), InputError);
}
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
