// DP x TP x PP layouts: validity, memory and the Megatron-style iteration
// time against hand computations (python3 one-liners of the same formulas,
// numbers written next to each check).
#include "vnsim/core/parallel_layout.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_clusters.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/layout_perf.hpp"

namespace vnsim {
namespace {

// The clusters: tests/clusters/{h100,a100}-1x<nodes>x8.json, one rack of
// `nodes` x 8 GPUs with 8 NICs each. Intra-node path: 2 links of 1 us; across
// nodes: GPU link, NIC, NIC, GPU link = 4 us, bottleneck the node's NICs.

JobSpec gpt_job(const std::string& model, int gpus, int tp, int pp, int batch) {
  JobSpec j;
  j.id = "gpt";
  j.model = model;
  j.gpus = gpus;
  j.tp = tp;
  j.pp = pp;
  j.global_batch = batch;
  j.iterations = 10;
  return j;
}

std::vector<GpuId> first_gpus(int n) {
  std::vector<GpuId> g(n);
  for (int i = 0; i < n; ++i) g[i] = i;
  return g;
}

TEST(TransformerModels, ParameterCountAndFlopsOfMegatron1T) {
  const TransformerModel& m = *find_transformer_model("megatron-1t");
  // 12*128*25600^2*(1 + 13/(12*25600) + (51200+2048)/(12*128*25600)) =
  // 1.0080387e12, the paper's "1008B".
  EXPECT_NEAR(m.parameter_count() / 1e12, 1.0080387, 1e-6);
  // 96*2048*128*25600^2*(1 + 2048/(6*25600) + 51200/(16*128*25600)) = 1.67287e16.
  EXPECT_NEAR(m.flops_per_sequence() / 1e16, 1.6728683, 1e-6);
}

// Megatron-LM's 1T run: [6 DP x 8 TP x 64 PP] = 3072 GPUs, batch 3072,
// micro-batch 1, here on 384 H100 nodes (NVLink 450 GB/s, 8 x 50 GB/s NICs).
TEST(LayoutIteration, Megatron1TOn3072H100sMatchesTheHandComputation) {
  const Cluster cluster(testing::test_cluster("h100-1x384x8"));
  const Topology topo(cluster);
  const JobSpec job = gpt_job("megatron-1t", 3072, 8, 64, 3072);
  ASSERT_EQ(why_layout_invalid(job, cluster), std::nullopt);
  const LayoutIteration it = layout_iteration_time(topo, GpuCatalog::builtin(),
                                                   *find_transformer_model(job.model), job, first_gpus(3072));
  EXPECT_EQ(it.layout.dp, 6);
  EXPECT_EQ(it.layout.micro_batches, 512);  // 3072 / (6 x 1)
  // Compute: 1.67287e16 / 512 / (989.4e12 x 0.52) = 0.0635063 s per micro-batch and stage.
  EXPECT_NEAR(it.stage_compute_s, 0.0635063, 1e-6);
  // TP: 2 layers x 6 all-reduces x 2*7*(2 us + 104857600/8/450e9) = 5.22935 ms.
  EXPECT_NEAR(it.tp_comm_s, 0.00522935, 1e-8);
  // PP: 2 x (4 us + 104857600/400e9) = 0.532288 ms (GPU 0 -> GPU 48, node 0 -> node 6).
  EXPECT_NEAR(it.pp_p2p_s, 0.000532288, 1e-9);
  // 1F1B: (512 + 63) x 0.0692679 = 39.8290 s, of which the bubble is 63 steps.
  EXPECT_NEAR(it.pipeline_s, 39.829044, 1e-5);
  EXPECT_NEAR(it.bubble_s / (it.pipeline_s - it.bubble_s), 63.0 / 512.0, 1e-12);  // (pp-1)/m
  // DP: 4 B x 1.0080387e12 / 512 = 7.875 GB per GPU, 6 ranks on 6 nodes,
  // 8 TP rings share each NIC: 2*5*(4 us + 8*7.875e9/6/400e9) = 0.262550 s.
  EXPECT_NEAR(it.dp_allreduce_s, 0.26255008, 1e-7);
  EXPECT_NEAR(it.total_s, 40.091594, 1e-5);
}

// The same run on A100s (312 TFLOP/s, NVLink 300 GB/s, 8 x 200 Gb/s HDR):
// the paper measured 163 TFLOP/s per GPU, i.e. 96*3072*...(flops of the
// batch) / (3072 x 163e12) = 102.63 s per iteration. Using its end-to-end 52%
// as kernel efficiency and adding the bubble and communication on top must
// come out slower, but by less than 25%.
TEST(LayoutIteration, Megatron1TOnA100sIsWithinAQuarterOfThePublishedRun) {
  const Cluster cluster(testing::test_cluster("a100-1x384x8"));
  const Topology topo(cluster);
  const JobSpec job = gpt_job("megatron-1t", 3072, 8, 64, 3072);
  const double t = layout_iteration_s(topo, GpuCatalog::builtin(), job, first_gpus(3072));
  const double published = 102.63;
  EXPECT_GT(t / published, 1.0);
  EXPECT_LT(t / published, 1.25);
}

TEST(LayoutIteration, PipelineBubbleShrinksWithMoreMicroBatches) {
  // gpt-1.3b on 2 nodes as 1 DP x 2 TP x 8 PP: m = batch / (1 x 1).
  const Cluster cluster(testing::test_cluster("h100-1x2x8"));
  const Topology topo(cluster);
  const TransformerModel& m = *find_transformer_model("gpt-1.3b");
  const LayoutIteration few =
      layout_iteration_time(topo, GpuCatalog::builtin(), m, gpt_job("gpt-1.3b", 16, 2, 8, 8), first_gpus(16));
  const LayoutIteration many = layout_iteration_time(topo, GpuCatalog::builtin(), m,
                                                     gpt_job("gpt-1.3b", 16, 2, 8, 64), first_gpus(16));
  // Same step; the bubble fraction (pp-1)/m is 7/8 vs 7/64.
  EXPECT_DOUBLE_EQ(few.step_s, many.step_s);
  EXPECT_DOUBLE_EQ(few.pipeline_s, (8 + 7) * few.step_s);
  EXPECT_DOUBLE_EQ(many.pipeline_s, (64 + 7) * many.step_s);
  EXPECT_EQ(few.dp_allreduce_s, 0.0);  // dp = 1
}

TEST(LayoutValidity, BadLayoutsAreRejectedWithAReason) {
  const Cluster cluster(testing::test_cluster("h100-1x4x8"));
  EXPECT_EQ(why_layout_invalid(gpt_job("gpt-1.3b", 24, 8, 2, 8), cluster),
            "layout tp=8 x pp=2 does not divide the 24 requested GPUs");
  EXPECT_EQ(why_layout_invalid(gpt_job("gpt-1.3b", 32, 16, 1, 32), cluster),
            "tp=16 is larger than a node (at most 8 GPUs per node)");
  EXPECT_EQ(why_layout_invalid(gpt_job("bert", 8, 2, 1, 8), cluster),
            "layout tp=2 x pp=1 needs a transformer model (gpt-1.3b, gpt3-175b, megatron-1t), 'bert' is "
            "profiled for data parallelism only");
  EXPECT_EQ(why_layout_invalid(gpt_job("gpt-1.3b", 10, 2, 5, 10), cluster),
            "pp=5 does not divide the 24 layers of gpt-1.3b");
  EXPECT_EQ(why_layout_invalid(gpt_job("gpt-1.3b", 16, 2, 2, 6), cluster),
            "global_batch 6 is not a multiple of dp (4) x micro_batch_size (1)");
  EXPECT_EQ(why_layout_invalid(gpt_job("gpt-1.3b", 16, 2, 2, 8), cluster), std::nullopt);
}

TEST(LayoutValidity, InfeasibleJobsNameTheLayoutReason) {
  const Cluster cluster(testing::test_cluster("h100-1x4x8"));
  const auto why = [&](const JobSpec& j) {
    return why_infeasible(j, cluster, GpuCatalog::builtin(), ModelCatalog::builtin());
  };
  EXPECT_EQ(why(gpt_job("gpt-1.3b", 24, 8, 2, 8)),
            "layout tp=8 x pp=2 does not divide the 24 requested GPUs");
  EXPECT_EQ(why(gpt_job("gpt-1.3b", 16, 2, 2, 8)), std::nullopt);
  // gpt3-175b on one node as 1 x 8 x 1: 16 B x 1.74616e11 / 8 + 96 layers x
  // 2*2048*12288 B + 2048*12288*(34 + 5*96*2048/12288)/8 B = 330.08 GiB.
  EXPECT_EQ(
      why(gpt_job("gpt3-175b", 8, 8, 1, 8)),
      "needs 330.1 GiB per GPU under layout 1 DP x 8 TP x 1 PP, largest allowed GPU (H100) has 80.0 GiB");
}

TEST(LayoutMemory, Megatron1TFitsAn80GiBGpuUnderItsLayout) {
  // 16 x 1.0080387e12 / 512 + 64 in flight x 2 layers x 2*2048*25600 B +
  // 2048*25600*(34 + 5*160*2048/25600)/8 B = 42.436 GiB.
  const JobSpec job = gpt_job("megatron-1t", 3072, 8, 64, 3072);
  EXPECT_NEAR(layout_memory_per_gpu_bytes(*find_transformer_model(job.model), job) / (1024.0 * 1024 * 1024),
              42.436, 1e-3);
}

TEST(LayoutValidity, PureDataParallelCatalogJobsDoNotUseTheLayoutModel) {
  JobSpec j = gpt_job("bert", 8, 1, 1, 8);
  EXPECT_FALSE(uses_layout(j));
  j.model = "gpt-1.3b";
  EXPECT_TRUE(uses_layout(j));
}

}  // namespace
}  // namespace vnsim
