// The catalog models derived from Gavel's throughput table
// (scripts/derive_model_catalog.py, docs/MODELS.md "Models from Gavel's
// table"): the catalog, with the GPU catalog's speeds, gives back the step
// times Gavel measured.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "shared_data.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(GavelModels, CatalogHasEveryFamilyOfGavelsTable) {
  const ModelCatalog& c = ModelCatalog::builtin();
  for (const char* name : {"transformer", "lm", "cyclegan", "a3c"}) EXPECT_NE(c.find(name), nullptr) << name;
  // Parameter counts from the architectures (docs/MODELS.md): 2-layer
  // 200-wide LSTM on WikiText-2's 33,278 words = 13,987,678 parameters, fp32.
  EXPECT_DOUBLE_EQ(c.at("lm").gradient_bytes, 4.0 * 13987678);
  // CycleGAN: 2 x (11,378,179 + 2,764,737) parameters, Adam (4 copies).
  EXPECT_DOUBLE_EQ(c.at("cyclegan").gradient_bytes, 4.0 * 28285832);
  EXPECT_DOUBLE_EQ(c.at("cyclegan").weight_state_bytes, 16.0 * 28285832);
  // Batch ranges as Gavel ran them; the largest fills a 12 GiB K80 less the
  // 1 GiB framework reserve.
  struct Row {
    const char* name;
    int min_local, max_local, default_local;
  };
  for (const Row& r : {Row{"transformer", 16, 256, 64}, Row{"lm", 5, 80, 20}, Row{"cyclegan", 1, 1, 1},
                       Row{"a3c", 1, 1, 1}}) {
    const ModelParams& m = c.at(r.name);
    EXPECT_EQ(m.min_local_batch, r.min_local) << r.name;
    EXPECT_EQ(m.max_local_batch, r.max_local) << r.name;
    EXPECT_EQ(m.default_local_batch, r.default_local) << r.name;
    EXPECT_NEAR(m.memory_needed_bytes(m.max_local_batch), 11 * kGiB, m.max_local_batch) << r.name;
  }
}

// Every scale-1 row of Gavel's table for the four families: the catalog's
// step time on that GPU type, (alpha + beta m) / speed, against 1 / rate.
// V100 rows are within 10% (the linear fit), except the one row where the
// V100 is slower than the P100 (Transformer at 256, left out of the fit as an
// outlier). Batch-1 families (CycleGAN, A3C) are exact on every type.
TEST(GavelModels, StepTimesGiveBackGavelsMeasurements) {
  VNSIM_REQUIRE_SHARED(shared);
  std::ifstream in(shared + "/profiles/gavel/simulation_throughputs.json");
  ASSERT_TRUE(in);
  const nlohmann::json table = nlohmann::json::parse(in);
  const std::map<std::string, std::string> model_of = {
      {"Transformer", "transformer"}, {"LM", "lm"}, {"CycleGAN", "cyclegan"}, {"A3C", "a3c"}};
  const std::regex key_re(R"(\('(.+?)(?: \(batch size (\d+)\))?', (\d+)\))");
  int checked = 0;
  for (const auto& [type, gavel_type] : {std::pair{"V100", "v100"}, {"P100", "p100"}, {"K80", "k80"}}) {
    for (const auto& [key, entry] : table.at(gavel_type).items()) {
      std::smatch m;
      ASSERT_TRUE(std::regex_match(key, m, key_re)) << key;
      const auto model = model_of.find(m[1]);
      if (model == model_of.end() || m[3] != "1") continue;
      const int batch = m[2].matched ? std::stoi(m[2]) : 1;
      const ModelParams& p = ModelCatalog::builtin().at(model->second);
      const double predicted = p.micro_batch_time_s(batch) / GpuCatalog::builtin().at(type).speed_for(p.name);
      const double measured = 1.0 / entry.at("null").get<double>();
      const std::string where = std::string(type) + " " + key;
      if (batch == 1) {
        EXPECT_NEAR(predicted / measured, 1.0, 1e-3) << where;
      } else if (std::string(type) == "V100") {
        const double p100 = 1.0 / table.at("p100").at(key).at("null").get<double>();
        if (measured <= p100) {
          EXPECT_NEAR(predicted / measured, 1.0, 0.10) << where;
        }
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3 * (5 + 5 + 1 + 1));
}

}  // namespace
}  // namespace vnsim
