// ElasticityCosts on its own: state size and save/restore times from the
// elasticity spec (docs/ELASTICITY.md).
#include "elasticity_costs.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vnsim::sim
