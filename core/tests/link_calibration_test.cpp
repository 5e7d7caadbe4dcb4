// Link calibration (vnsim calibrate): the simulated step of a measured row,
// the fit of the efficiencies, and the placements.csv reader's errors.
#include "vnsim/core/link_calibration.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

// 2 nodes x 2 T4 (the reference GPU); PCIe at 80 Gbit/s = 10 GB/s per GPU
// link, NIC at 8 Gbit/s = 1 GB/s.
ClusterSpec two_by_two() {
  return parse_cluster_spec(R"({"name": "c", "defaults": {"gpus": 2, "gpu_type": "T4",
      "intra": {"kind": "pcie", "bandwidth_gbps": 80, "latency_us": 1},
      "nic": {"bandwidth_gbps": 8, "latency_us": 1}},
      "racks": [{"name": "r", "nodes": [{"name_prefix": "n", "count": 2}]}]})",
                            "c.json");
}

ModelCatalog one_gib_gradients(const std::string& overlap_fraction = "0") {
  return ModelCatalog::parse(R"({"models": {"m": {"alpha_compute_s": 0.1, "beta_compute_s": 0.01,
      "gradient_bytes": 1e9, "weight_state_bytes": 1e9, "memory_per_sample_bytes": 1e6,
      "min_local_batch": 1, "max_local_batch": 64, "default_local_batch": 8, "initial_batch": 8,
      "max_global_batch": 512, "overlap_gamma": 1, "overlap_fraction": )" +
                                 overlap_fraction + "}}}",
                             "m.json");
}

TEST(LinkCalibration, EfficiencyScalesTheRingsBandwidthTerm) {
  const ModelCatalog models = one_gib_gradients();
  const MeasuredStep one_node{"m", {2}, 10, 1.0, "x:2"};
  const auto step = [&](double intra, double nic, const MeasuredStep& row) {
    return simulated_step_s(with_link_efficiencies(two_by_two(), intra, nic), row, GpuCatalog::builtin(),
                            models);
  };
  // A 2-GPU ring: 2 steps of 1e9 / 2 bytes over the 10 GB/s PCIe hop, 0.1 s at
  // efficiency 1, 0.2 s at 0.5 (latencies are not scaled, so they cancel).
  EXPECT_NEAR(step(0.5, 1, one_node) - step(1, 1, one_node), 0.1, 1e-9);
  // Across the two nodes the NIC (1 GB/s) is the bottleneck: 1 s at 1, 2 s at 0.5.
  const MeasuredStep two_nodes{"m", {1, 1}, 10, 1.0, "x:3"};
  EXPECT_NEAR(step(1, 0.5, two_nodes) - step(1, 1, two_nodes), 1.0, 1e-9);
  EXPECT_NEAR(step(0.5, 1, two_nodes) - step(1, 1, two_nodes), 0.0, 1e-9);
}

TEST(LinkCalibration, FitRecoversTheEfficienciesThatMadeTheSteps) {
  const ModelCatalog models = one_gib_gradients();
  const ClusterSpec truth = with_link_efficiencies(two_by_two(), 0.25, 0.08);
  std::vector<MeasuredStep> rows = {{"m", {1}, 8, 0, "p:2"},     {"m", {2}, 8, 0, "p:3"},
                                    {"m", {2}, 32, 0, "p:4"},    {"m", {1, 1}, 8, 0, "p:5"},
                                    {"m", {2, 1}, 16, 0, "p:6"}, {"m", {2, 2}, 4, 0, "p:7"}};
  for (auto& r : rows) r.step_s = simulated_step_s(truth, r, GpuCatalog::builtin(), models);
  const LinkFit fit = fit_link_efficiencies(two_by_two(), rows, GpuCatalog::builtin(), models);
  EXPECT_EQ(fit.intra_rows, 2u);  // the single-GPU row is left out
  EXPECT_EQ(fit.nic_rows, 3u);
  EXPECT_NEAR(fit.intra_efficiency, 0.25, 0.25 * 1e-3);
  EXPECT_NEAR(fit.nic_efficiency, 0.08, 0.08 * 1e-3);
  EXPECT_GT(fit.nic_error_before, 0.5);
  EXPECT_LT(fit.nic_error_after, 1e-4);
  EXPECT_LT(fit.intra_error_after, 1e-4);
}

TEST(LinkCalibration, FitRecoversTheOverlapFractionWithTheEfficiencies) {
  // Steps made with f = 0.4 and efficiencies 0.25 / 0.08; the catalog says f = 0.
  // A 2-GPU ring at 0.25 x 10 GB/s takes 2 x 0.5e9 / 2.5e9 = 0.4 s; compute at
  // local batch 8, 64 and 200 is 0.18, 0.74 and 2.1 s, so the small batches
  // expose (1 - f) x compute + all-reduce and the largest hides the ring.
  const ModelCatalog models = one_gib_gradients();
  const ModelCatalog truth_models = one_gib_gradients("0.4");
  const ClusterSpec truth = with_link_efficiencies(two_by_two(), 0.25, 0.08);
  std::vector<MeasuredStep> rows;
  int line = 2;
  for (const std::vector<int>& placement : std::vector<std::vector<int>>{{2}, {1, 1}, {2, 1}, {2, 2}})
    for (int local : {8, 64, 200}) rows.push_back({"m", placement, local, 0, "p:" + std::to_string(line++)});
  for (auto& r : rows) r.step_s = simulated_step_s(truth, r, GpuCatalog::builtin(), truth_models);
  EXPECT_NEAR(rows[0].step_s, 0.6 * 0.18 + 0.4, 1e-5);  // hand-computed: f x compute < all-reduce
  EXPECT_NEAR(rows[2].step_s, 2.1, 1e-9);               // 0.4 x 2.1 = 0.84 s hides the 0.4 s ring
  const LinkFit fit = fit_link_efficiencies(two_by_two(), rows, GpuCatalog::builtin(), models, true);
  ASSERT_EQ(fit.overlaps.size(), 1u);
  EXPECT_EQ(fit.overlaps[0].model, "m");
  EXPECT_EQ(fit.overlaps[0].rows, 12u);
  EXPECT_NEAR(fit.overlaps[0].overlap_fraction, 0.4, 2e-3);
  EXPECT_NEAR(fit.intra_efficiency, 0.25, 0.25 * 5e-3);
  EXPECT_NEAR(fit.nic_efficiency, 0.08, 0.08 * 5e-3);
  EXPECT_GT(fit.overlaps[0].error_before, 0.1);
  EXPECT_LT(fit.overlaps[0].error_after, 2e-3);
  EXPECT_EQ(fitted_overlaps(fit), (std::map<std::string, double>{{"m", fit.overlaps[0].overlap_fraction}}));
  // Without fit_overlap nothing about f is fitted or reported.
  EXPECT_TRUE(fit_link_efficiencies(two_by_two(), rows, GpuCatalog::builtin(), models).overlaps.empty());
}

TEST(LinkCalibration, PlacementThatDoesNotFitNamesTheRow) {
  const MeasuredStep row{"m", {3}, 8, 1, "dir/m/placements.csv:7"};
  try {
    simulated_step_s(two_by_two(), row, GpuCatalog::builtin(), one_gib_gradients());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "dir/m/placements.csv:7: placement needs 3 GPUs on node 0, which has 2");
  }
}

TEST(LinkCalibration, ReaderNamesFileAndLine) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("vnsim-link-cal-" + std::to_string(::getpid()));
  fs::create_directories(dir / "m");
  fs::create_directories(dir / "not-a-model");
  std::ofstream(dir / "m" / "placements.csv") << "placement,local_bsz,step_time,sync_time\n22,8,0.5,0.1\n";
  const auto rows = read_pollux_placements(dir.string(), one_gib_gradients());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].gpus_per_node, (std::vector<int>{2, 2}));
  EXPECT_EQ(rows[0].local_batch, 8);
  EXPECT_DOUBLE_EQ(rows[0].step_s, 0.5);
  std::ofstream(dir / "m" / "placements.csv")
      << "placement,local_bsz,step_time,sync_time\n22,8,0.5,0.1\n2x,8,1,0\n";
  try {
    read_pollux_placements(dir.string(), one_gib_gradients());
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "m" / "placements.csv").string() +
                                         ":3: placement '2x' must be digits 1-9 (GPUs per node)");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vnsim
