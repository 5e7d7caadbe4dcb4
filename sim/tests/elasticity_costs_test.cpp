// ElasticityCosts on its own: state size and save/restore times from the
// elasticity spec (docs/ELASTICITY.md).
#include "elasticity_costs.hpp"

#include <gtest/gtest.h>

#include "vnsim/core/transformer_models.hpp"

namespace vnsim::sim {
namespace {

TEST(ElasticityCosts, StateIsWeightsAndOptimizerWithoutTheGradientBuffer) {
  const ModelCatalog& models = ModelCatalog::builtin();
  const ModelParams& m = models.at(models.names().front());
  JobSpec job;
  job.model = m.name;
  ElasticitySpec e;
  e.storage_bandwidth_Bps = 2e9;
  e.restart_delay_s = 30;
  e.communicator_setup_s = 1.5;
  const ElasticityCosts costs(e, models);
  const double bytes = m.weight_state_bytes - m.gradient_bytes;
  ASSERT_GT(bytes, 0);
  EXPECT_DOUBLE_EQ(costs.state_bytes(job), bytes);
  EXPECT_DOUBLE_EQ(costs.save_s(job), bytes / 2e9);
  EXPECT_DOUBLE_EQ(costs.restore_s(job), 30 + bytes / 2e9);
  EXPECT_EQ(costs.communicator_setup_s(), 1.5);
  e.restart_delay_by_model_s[m.name] = 5;  // a per-model restart delay wins
  EXPECT_DOUBLE_EQ(costs.restore_s(job), 5 + bytes / 2e9);
}

// A DP x TP x PP job's model is in the layout model's table, not the
// data-parallel catalog: its state is 14 bytes per parameter of the whole
// model (16 B of mixed-precision Adam less the fp16 gradient).
TEST(ElasticityCosts, LayoutJobStateComesFromTheTransformerModel) {
  const TransformerModel* t = find_transformer_model("gpt-1.3b");
  ASSERT_NE(t, nullptr);
  JobSpec job;
  job.model = "gpt-1.3b";
  job.tp = 2;
  job.pp = 2;
  ElasticitySpec e;
  e.storage_bandwidth_Bps = 2e9;
  e.restart_delay_s = 30;
  const ElasticityCosts costs(e, ModelCatalog::builtin());
  const double bytes = 14 * t->parameter_count();
  EXPECT_GT(bytes, 1.3e9 * 14);  // about 1.3e9 parameters
  EXPECT_LT(bytes, 1.5e9 * 14);
  EXPECT_DOUBLE_EQ(costs.state_bytes(job), bytes);
  EXPECT_DOUBLE_EQ(costs.restore_s(job), 30 + bytes / 2e9);
}

}  // namespace
}  // namespace vnsim::sim
