// Cluster specs built from trace inventories, and the simulator's refusal of
// jobs those clusters cannot run.
#include "vnsim/traces/cluster_from_inventory.hpp"

#include <gtest/gtest.h>

#include "shared_data.hpp"
#include "trace_test_support.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

std::string error_of(const std::string& path, InventoryOptions options = {}) {
  try {
    cluster_from_inventory(path, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> node_names(const ClusterSpec& spec) {
  std::vector<std::string> names;
  for (const auto& r : spec.racks)
    for (const auto& n : r.nodes) names.push_back(n.name);
  return names;
}

TEST(ClusterFromInventory, PhillyMachineListMapsMemoryToGpuType) {
  const auto built = cluster_from_inventory(trace_data("inventory_philly.csv"), {});
  EXPECT_EQ(built.format, "philly-machines");
  EXPECT_EQ(built.spec.name, "inventory_philly");
  EXPECT_EQ(node_names(built.spec), (std::vector<std::string>{"m0", "m1", "m2"}));
  EXPECT_EQ(built.gpus_by_type, (std::map<std::string, long>{{"K80", 2}, {"P40", 16}}));
  EXPECT_TRUE(built.left_out.empty());
  const auto& m1 = built.spec.racks[0].nodes[1];
  EXPECT_EQ(m1.gpu_types, std::vector<std::string>(8, "P40"));
  EXPECT_EQ(m1.intra.kind, IntraLinkKind::PCIe);
}

TEST(ClusterFromInventory, PaiLeavesOutCpuAndUnmappedMachinesWithReasons) {
  const auto built = cluster_from_inventory(trace_data("inventory_pai.csv"), {});
  EXPECT_EQ(built.format, "pai-machines");
  EXPECT_EQ(node_names(built.spec), (std::vector<std::string>{"p0", "t0", "v0", "v1"}));
  EXPECT_EQ(built.gpus_by_type, (std::map<std::string, long>{{"P100", 2}, {"T4", 2}, {"V100", 16}}));
  ASSERT_EQ(built.left_out.size(), 2u);
  EXPECT_EQ(built.left_out[0].line, 2);
  EXPECT_EQ(built.left_out[0].reason, "CPU-only machine 'cpu0' (0 GPUs)");
  EXPECT_EQ(built.left_out[1].line, 6);
  EXPECT_NE(built.left_out[1].reason.find("GPU type 'MISC' is not in the GPU catalog"), std::string::npos);

  InventoryOptions mapped;
  mapped.gpu_map = parse_gpu_map("MISC=K80");
  const auto with_misc = cluster_from_inventory(trace_data("inventory_pai.csv"), mapped);
  EXPECT_EQ(with_misc.gpus_by_type.at("K80"), 8);
  EXPECT_EQ(with_misc.left_out.size(), 1u);
}

TEST(ClusterFromInventory, OpenbNodesWithCrlfAndRacksOfK) {
  InventoryOptions options;
  options.nodes_per_rack = 2;
  options.name = "openb-test";
  const auto built = cluster_from_inventory(trace_data("inventory_openb.csv"), options);
  EXPECT_EQ(built.format, "openb-nodes");
  EXPECT_EQ(built.spec.name, "openb-test");
  ASSERT_EQ(built.spec.racks.size(), 2u);  // n1 n2 | n3 n4
  EXPECT_EQ(built.spec.racks[1].nodes[0].name, "n3");
  // n1's 8 G2 GPUs stand in as V100 (docs/TRACES.md, "GPU types"): 8 + 4.
  EXPECT_EQ(built.gpus_by_type, (std::map<std::string, long>{{"A10", 1}, {"T4", 2}, {"V100", 12}}));
  EXPECT_EQ(built.left_out.size(), 1u);  // n0 (CPU-only)
}

TEST(ClusterFromInventory, OpenbUndisclosedTypesStandInAsV100UnlessMapped) {
  // Hand-written: 8 x G2, 8 x G3, 2 x T4 and one CPU-only node.
  const auto built = cluster_from_inventory(trace_data("inventory_openb_undisclosed.csv"), {});
  EXPECT_EQ(built.gpus_by_type, (std::map<std::string, long>{{"T4", 2}, {"V100", 16}}));
  ASSERT_EQ(built.left_out.size(), 1u);
  EXPECT_NE(built.left_out[0].reason.find("CPU-only"), std::string::npos) << built.left_out[0].reason;
  // An explicit --gpu-map wins over the stand-in.
  InventoryOptions mapped;
  mapped.gpu_map = parse_gpu_map("G2=A100");
  const auto with_map = cluster_from_inventory(trace_data("inventory_openb_undisclosed.csv"), mapped);
  EXPECT_EQ(with_map.gpus_by_type, (std::map<std::string, long>{{"A100", 8}, {"T4", 2}, {"V100", 8}}));
}

TEST(ClusterFromInventory, MalformedInventoriesNameFileAndLine) {
  EXPECT_NE(error_of(trace_data("inventory_bad_count.csv")).find("inventory_bad_count.csv:3: number of GPUs"),
            std::string::npos);
  EXPECT_NE(error_of(trace_data("inventory_bad_memory.csv"))
                .find("inventory_bad_memory.csv:2: unknown GPU memory '16GB'"),
            std::string::npos);
  EXPECT_NE(
      error_of(trace_data("inventory_duplicate.csv")).find(":3: duplicate machine 'n0' (first on line 2)"),
      std::string::npos);
  EXPECT_NE(error_of(trace_data("philly_small.csv")).find("unrecognised inventory header"),
            std::string::npos);
  InventoryOptions wrong;
  wrong.format = "pai-machines";
  EXPECT_NE(error_of(trace_data("inventory_philly.csv"), wrong).find(":1: header"), std::string::npos);
  EXPECT_THROW(parse_gpu_map("G2=Z100"), InputError);
  EXPECT_THROW(parse_gpu_map("G2"), InputError);
}

TEST(ClusterFromInventory, JobsBeyondTheInventoryAreRejectedWithTheReason) {
  // The openb test inventory keeps 8 + 4 V100 (G2 standing in) + 1 A10 + 2 T4 = 15 GPUs.
  const Cluster cluster(cluster_from_inventory(trace_data("inventory_openb.csv"), {}).spec);
  ASSERT_EQ(cluster.gpu_count(), 15);
  auto why = [&](int gpus, std::optional<std::string> type) {
    JobSpec job;
    job.id = "j";
    job.model = "cifar10";
    job.gpus = gpus;
    job.virtual_nodes = gpus;
    job.global_batch = 64 * gpus;
    job.iterations = 10;
    job.gpu_type = type;
    return why_infeasible(job, cluster, GpuCatalog::builtin(), ModelCatalog::builtin());
  };
  EXPECT_EQ(why(16, std::nullopt), "requests 16 GPUs, cluster has 15");
  EXPECT_EQ(why(1, "P100"), "GPU type 'P100' not in cluster");
  EXPECT_EQ(why(13, "V100"), "requests 13 GPUs of type V100, cluster has 12");
  EXPECT_EQ(why(4, "V100"), std::nullopt);
}

TEST(ClusterFromInventoryShared, PhillyMachineListGivesThePhilly2017Preset) {
  VNSIM_REQUIRE_SHARED(shared);
  const auto built = cluster_from_inventory(shared + "/traces/philly_2017_machine_list_552.csv", {});
  const ClusterSpec preset = load_cluster_spec("philly-2017");
  const ClusterSpec& spec = built.spec;
  ASSERT_EQ(spec.racks.size(), preset.racks.size());
  EXPECT_EQ(spec.racks.size(), 35u);
  EXPECT_EQ(spec.link_efficiency, preset.link_efficiency);
  EXPECT_EQ(spec.spine_latency_s, preset.spine_latency_s);
  for (std::size_t r = 0; r < spec.racks.size(); ++r) {
    const auto& a = spec.racks[r];
    const auto& b = preset.racks[r];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.oversubscription, b.oversubscription);
    EXPECT_EQ(a.uplink_latency_s, b.uplink_latency_s);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (std::size_t n = 0; n < a.nodes.size(); ++n) {
      EXPECT_EQ(a.nodes[n].name, b.nodes[n].name);
      EXPECT_EQ(a.nodes[n].gpu_types, b.nodes[n].gpu_types);
      EXPECT_EQ(a.nodes[n].intra.kind, b.nodes[n].intra.kind);
      EXPECT_EQ(a.nodes[n].intra.bandwidth_Bps, b.nodes[n].intra.bandwidth_Bps);
      EXPECT_EQ(a.nodes[n].intra.latency_s, b.nodes[n].intra.latency_s);
      EXPECT_EQ(a.nodes[n].nic_bandwidth_Bps, b.nodes[n].nic_bandwidth_Bps);
      EXPECT_EQ(a.nodes[n].nic_count, b.nodes[n].nic_count);
      EXPECT_EQ(a.nodes[n].nic_latency_s, b.nodes[n].nic_latency_s);
    }
  }
  // Philly's cluster_machine_list (computed): 321 x 2 (12 GB) + 231 x 8 (24 GB) = 2,490 GPUs.
  EXPECT_EQ(built.gpus_by_type, (std::map<std::string, long>{{"K80", 642}, {"P40", 1848}}));
}

TEST(ClusterFromInventoryShared, PaiAndOpenbInventoriesMatchTheirPublishedCounts) {
  VNSIM_REQUIRE_SHARED(shared);
  // PAI 2020 machine spec (computed): P100 2 x 798, T4 2 x 497, V100M32 8 x 135, V100 8 x 104,
  // MISC 8 x 280 (left out unless mapped), CPU 83 (left out).
  const auto pai = cluster_from_inventory(shared + "/traces/alibaba_pai_2020_machine_spec_1897.csv", {});
  EXPECT_EQ(pai.gpus_by_type, (std::map<std::string, long>{{"P100", 1596}, {"T4", 994}, {"V100", 1912}}));
  EXPECT_EQ(pai.left_out.size(), 280u + 83u);
  // openb node list (computed): T4 2 x 387 + 4 x 17, P100 2 x 131 + 1 x 3, V100M16 4 x 28 +
  // 1 x 19 + 8 x 8, V100M32 8 x 21 + 4 x 9, A10 1 x 2; G2 8 x 549 and G3 8 x 39
  // stand in as V100; the 310 CPU-only nodes are left out. All 6,212 GPUs are kept.
  const auto openb = cluster_from_inventory(shared + "/traces/alibaba_gpu_2023_openb_nodes_1523.csv", {});
  EXPECT_EQ(openb.gpus_by_type, (std::map<std::string, long>{
                                    {"A10", 2}, {"P100", 265}, {"T4", 842}, {"V100", 399 + 4392 + 312}}));
  long total = 0;
  for (const auto& [type, count] : openb.gpus_by_type) total += count;
  EXPECT_EQ(total, 6212);
  EXPECT_EQ(Cluster(openb.spec).gpu_count(), 6212);
  EXPECT_EQ(openb.left_out.size(), 310u);
}

}  // namespace
}  // namespace vnsim
