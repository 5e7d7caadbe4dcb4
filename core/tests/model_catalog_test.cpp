// Model catalog: parsing, validation messages, and the built-in catalog
// checked against the Pollux profiles it was derived from.
#include "vnsim/core/model_catalog.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "shared_data.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string model_json(const std::string& fields) {
  return R"({"models": {"m": {)" + fields + "}}}";
}

const std::string kValidFields =
    R"("alpha_compute_s": 0.1, "beta_compute_s": 0.01, "gradient_bytes": 4e6, "weight_state_bytes": 1.2e7,
       "memory_per_sample_bytes": 1e6, "min_local_batch": 2, "max_local_batch": 64, "default_local_batch": 32,
       "initial_batch": 32, "max_global_batch": 1024, "overlap_gamma": 1.5)";

std::string parse_error(const std::string& text) {
  try {
    ModelCatalog::parse(text, "models.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// kValidFields with one field's value replaced.
std::string with_field(const std::string& key, const std::string& value) {
  std::string fields = kValidFields;
  const auto start = fields.find("\"" + key + "\"");
  const auto colon = fields.find(':', start);
  const auto end = fields.find_first_of(",", colon);
  fields.replace(colon + 1, (end == std::string::npos ? fields.size() : end) - colon - 1, " " + value);
  return model_json(fields);
}

TEST(ModelCatalog, ParsesAllFieldsAndFormulas) {
  const ModelCatalog c = ModelCatalog::parse(model_json(kValidFields), "models.json");
  const ModelParams& m = c.at("m");
  EXPECT_EQ(m.name, "m");
  EXPECT_DOUBLE_EQ(m.gradient_bytes, 4e6);
  EXPECT_EQ(m.min_local_batch, 2);
  EXPECT_EQ(m.max_local_batch, 64);
  EXPECT_EQ(m.default_local_batch, 32);
  EXPECT_EQ(m.initial_batch, 32);
  EXPECT_EQ(m.max_global_batch, 1024);
  EXPECT_DOUBLE_EQ(m.overlap_gamma, 1.5);
  EXPECT_DOUBLE_EQ(m.micro_batch_time_s(10), 0.1 + 0.01 * 10);
  EXPECT_DOUBLE_EQ(m.memory_needed_bytes(8), 1.2e7 + 8e6);
  EXPECT_EQ(c.find("other"), nullptr);
  EXPECT_EQ(m.step_overhead_s, 0);  // optional, absent
  EXPECT_EQ(m.compute_jitter_s, 0);
}

TEST(ModelCatalog, ReadsTheStepOverheadAndJitterAndRefusesNegativeOnes) {
  const ModelCatalog c = ModelCatalog::parse(
      model_json(kValidFields + R"(, "step_overhead_s": 5e-5, "compute_jitter_s": 2e-5)"), "models.json");
  EXPECT_DOUBLE_EQ(c.at("m").step_overhead_s, 5e-5);
  EXPECT_DOUBLE_EQ(c.at("m").compute_jitter_s, 2e-5);
  EXPECT_NE(parse_error(model_json(kValidFields + R"(, "step_overhead_s": -1)")).find("step_overhead_s"),
            std::string::npos);
  EXPECT_NE(parse_error(model_json(kValidFields + R"(, "compute_jitter_s": -1)")).find("compute_jitter_s"),
            std::string::npos);
}

TEST(ModelCatalog, ReadsAProfilesStartChargeAndRefusesANegativeOne) {
  const ModelCatalog c =
      ModelCatalog::parse(model_json(kValidFields + R"(, "start_charge_s": 0.025)"), "m.json");
  ASSERT_TRUE(c.at("m").start_charge_s.has_value());
  EXPECT_DOUBLE_EQ(*c.at("m").start_charge_s, 0.025);
  EXPECT_FALSE(ModelCatalog::parse(model_json(kValidFields), "m.json").at("m").start_charge_s.has_value());
  EXPECT_NE(parse_error(model_json(kValidFields + R"(, "start_charge_s": -1)")).find("start_charge_s"),
            std::string::npos);
}

TEST(ModelCatalog, UnknownModelNamesTheKnownOnes) {
  const ModelCatalog c = ModelCatalog::parse(model_json(kValidFields), "models.json");
  try {
    c.at("foo");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown model 'foo' (known: m)");
  }
}

TEST(ModelCatalog, ValidationNamesFileFieldAndReason) {
  EXPECT_EQ(parse_error(model_json(R"("alpha_compute_s": 0.1)")),
            "models.json: models.m.beta_compute_s: missing required field");
  EXPECT_EQ(parse_error(with_field("alpha_compute_s", "\"fast\"")),
            "models.json: models.m.alpha_compute_s: must be a number");
  EXPECT_EQ(parse_error(with_field("beta_compute_s", "-0.5")),
            "models.json: models.m.beta_compute_s: must be >= 0, got -0.5");
  EXPECT_EQ(parse_error(with_field("min_local_batch", "1.5")),
            "models.json: models.m.min_local_batch: must be an integer");
  EXPECT_EQ(parse_error(with_field("max_local_batch", "1")),
            "models.json: models.m.max_local_batch: must be in [2, 1e9], got 1");
  EXPECT_EQ(parse_error(with_field("default_local_batch", "65")),
            "models.json: models.m.default_local_batch: must be <= max_local_batch (64)");
  EXPECT_EQ(parse_error(with_field("max_global_batch", "16")),
            "models.json: models.m.max_global_batch: must be in [32, 1e9], got 16");
  EXPECT_EQ(parse_error(with_field("overlap_gamma", "11")),
            "models.json: models.m.overlap_gamma: must be in [1, 10] (Pollux's bounds)");
  EXPECT_EQ(parse_error(with_field("gradient_bytes", "0")),
            "models.json: models.m.gradient_bytes: must be >= 1, got 0");
  EXPECT_EQ(parse_error(model_json(kValidFields + R"(, "alpha_c": 1)")),
            "models.json: models.m.alpha_c: unknown field");
  EXPECT_EQ(parse_error(R"({"models": {}})"), "models.json: models: must be a non-empty object");
  EXPECT_EQ(parse_error(R"({"modles": {}})"), "models.json: modles: unknown field");
  EXPECT_EQ(parse_error(R"([])"), "models.json: (document): must be a JSON object");
}

TEST(ModelCatalog, ZeroComputeTimeIsRejected) {
  std::string text = with_field("alpha_compute_s", "0");
  const auto pos = text.find("\"beta_compute_s\": 0.01");
  text.replace(pos, 22, "\"beta_compute_s\": 0");
  EXPECT_EQ(
      parse_error(text),
      "models.json: models.m: alpha_compute_s + beta_compute_s must be > 0 (a step cannot take no time)");
}

TEST(ModelCatalog, InvalidJsonReportsLine) {
  const std::string msg = parse_error("{\n\"models\": {\n  \"m\": {\"alpha_compute_s\": }\n}}");
  EXPECT_NE(msg.find("models.json: (document): invalid JSON"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

const std::vector<std::string> kPolluxModels = {"bert",     "cifar10", "deepspeech2",
                                                "imagenet", "ncf",     "yolov3"};

// The six Pollux models and the four Gavel-only ones (gavel_models_test.cpp).
TEST(ModelCatalog, BuiltinHasThePolluxAndGavelModels) {
  const ModelCatalog& c = ModelCatalog::builtin();
  EXPECT_EQ(c.names(), (std::vector<std::string>{"a3c", "bert", "cifar10", "cyclegan", "deepspeech2",
                                                 "imagenet", "lm", "ncf", "transformer", "yolov3"}));
  // M0 and largest M, local batch range: the Pollux OSDI'21 simulator
  // (petuum/adaptdl osdi21-artifact, simulator/applications.py: M0 = smallest
  // validated batch, largest M = largest, local range from placements.csv;
  // yolov3's largest local batch overridden to 8).
  struct Row {
    const char* name;
    int m0, max_m, min_local, max_local;
  };
  for (const Row& r : {Row{"bert", 12, 384, 4, 12}, Row{"cifar10", 128, 4096, 32, 1024},
                       Row{"deepspeech2", 20, 640, 10, 80}, Row{"imagenet", 200, 12800, 20, 200},
                       Row{"ncf", 256, 32768, 32, 32768}, Row{"yolov3", 8, 512, 4, 8}}) {
    const ModelParams& m = c.at(r.name);
    EXPECT_EQ(m.initial_batch, r.m0) << r.name;
    EXPECT_EQ(m.max_global_batch, r.max_m) << r.name;
    EXPECT_EQ(m.min_local_batch, r.min_local) << r.name;
    EXPECT_EQ(m.max_local_batch, r.max_local) << r.name;
    EXPECT_LE(m.min_local_batch, m.default_local_batch) << r.name;
    EXPECT_LE(m.default_local_batch, m.max_local_batch) << r.name;
    // The largest local batch fills the 16 GiB reference GPU less the 1 GiB
    // framework reserve (docs/MODELS.md); per-sample bytes are rounded.
    EXPECT_NEAR(m.memory_needed_bytes(m.max_local_batch), 15 * kGiB, m.max_local_batch) << r.name;
  }
  // 4 bytes per parameter: BERT-base's 110M parameters.
  EXPECT_DOUBLE_EQ(c.at("bert").gradient_bytes, 440e6);
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// The built-in compute times must be the least-squares line through the
// single-GPU rows of each profile, so a stale models.json fails here.
TEST(ModelCatalog, BuiltinComputeFitMatchesSingleGpuProfiles) {
  VNSIM_REQUIRE_SHARED(shared);
  for (const auto& name : kPolluxModels) {
    const auto rows = read_csv(shared + "/profiles/pollux/" + name + "/placements.csv");
    ASSERT_GE(rows.size(), 2u);
    ASSERT_EQ(rows[0][0], "placement");
    std::vector<double> x, y;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      if (rows[i][0] != "1") continue;
      x.push_back(std::stod(rows[i][1]));
      y.push_back(std::stod(rows[i][2]));
    }
    ASSERT_GE(x.size(), 2u) << name;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / x.size(), my += y[i] / x.size();
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    const double beta = sxy / sxx;
    const double alpha = my - beta * mx;
    const ModelParams& m = ModelCatalog::builtin().at(name);
    EXPECT_NEAR(m.alpha_compute_s, alpha, 1e-5 * std::max(1.0, alpha)) << name;
    EXPECT_NEAR(m.beta_compute_s, beta, 1e-5 * beta) << name;
  }
}

TEST(ModelCalibration, SlowdownScalesComputeAndGradientBytes) {
  const ModelCatalog& plain = ModelCatalog::builtin();
  const ModelCatalog slow = plain.with_slowdowns({{"cifar10", 1.8}});
  const ModelParams& a = plain.at("cifar10");
  const ModelParams& b = slow.at("cifar10");
  EXPECT_DOUBLE_EQ(b.alpha_compute_s, 1.8 * a.alpha_compute_s);
  EXPECT_DOUBLE_EQ(b.beta_compute_s, 1.8 * a.beta_compute_s);
  EXPECT_DOUBLE_EQ(b.gradient_bytes, 1.8 * a.gradient_bytes);
  EXPECT_DOUBLE_EQ(b.memory_per_sample_bytes, a.memory_per_sample_bytes);  // memory is not slower
  EXPECT_DOUBLE_EQ(slow.at("bert").alpha_compute_s, plain.at("bert").alpha_compute_s);  // not named: 1
  EXPECT_THROW(plain.with_slowdowns({{"nope", 2}}), InputError);
  EXPECT_THROW(plain.with_slowdowns({{"bert", 0}}), InputError);
}

TEST(ModelCalibration, UnknownConfigurationIsAnInputErrorAndLateSelectionALogicError) {
  (void)ModelCatalog::builtin();  // in use from here on
  EXPECT_THROW(ModelCatalog::select_builtin_calibration("sia-artifact"), std::logic_error);
}

}  // namespace
}  // namespace vnsim
