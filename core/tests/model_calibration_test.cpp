#include "vnsim/core/model_calibration.hpp"

#include <gtest/gtest.h>

#include <string>

#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {
namespace {

ModelCalibration parse_config(const std::string& config) {
  return ModelCalibration::parse(R"({"configurations": {"c": )" + config + "}}", "cal.json", "c",
                                 ModelCatalog::builtin_uncalibrated(), GpuCatalog::builtin_uncalibrated());
}

std::string error_of(const std::string& config) {
  try {
    parse_config(config);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ModelCalibrationFile, PerTypeFactorFallsBackToModelFactorThenOne) {
  const ModelCalibration c = parse_config(
      R"({"slowdown": {"cifar10": 1.8}, "slowdown_by_gpu": {"cifar10": {"K80": 2.5}, "bert": {"V100": 1.5}}})");
  EXPECT_DOUBLE_EQ(c.slowdown_for("cifar10", "K80"), 2.5);  // per type
  EXPECT_DOUBLE_EQ(c.slowdown_for("cifar10", "T4"), 1.8);   // the model's own
  EXPECT_DOUBLE_EQ(c.slowdown_for("bert", "V100"), 1.5);
  EXPECT_DOUBLE_EQ(c.slowdown_for("bert", "T4"), 1.0);  // neither given
  EXPECT_DOUBLE_EQ(c.slowdown_for("ncf", "K80"), 1.0);
}

// Hand-computed: cifar10 on K80 has speed 0.3607 (gpu_types.json). With the
// model factor 1.8 in its compute (alpha, beta x 1.8) and a K80 factor 2.5,
// the K80 speed becomes 0.3607 * 1.8 / 2.5 = 0.259704, so one micro-batch on a
// K80 takes 1.8 * t / 0.259704 = 2.5 * t / 0.3607: 2.5 times the uncalibrated
// K80 time. On T4 (no per-type factor) it takes 1.8 times as long.
TEST(ModelCalibrationFile, PerTypeFactorScalesComputeOnThatTypeOnly) {
  const ModelCalibration c =
      parse_config(R"({"slowdown": {"cifar10": 1.8}, "slowdown_by_gpu": {"cifar10": {"K80": 2.5}}})");
  const ModelCatalog& plain_models = ModelCatalog::builtin_uncalibrated();
  const GpuCatalog& plain_gpus = GpuCatalog::builtin_uncalibrated();
  const ModelCatalog models = c.apply(plain_models);
  const GpuCatalog gpus = c.apply(plain_gpus);
  ASSERT_DOUBLE_EQ(plain_gpus.at("K80").speed_for("cifar10"), 0.3607);
  EXPECT_NEAR(gpus.at("K80").speed_for("cifar10"), 0.259704, 1e-12);
  EXPECT_DOUBLE_EQ(gpus.at("T4").speed_for("cifar10"), 1.0);
  EXPECT_DOUBLE_EQ(gpus.at("K80").speed_for("bert"), plain_gpus.at("K80").speed_for("bert"));
  const double t = plain_models.at("cifar10").micro_batch_time_s(64);
  const auto time_on = [&](const std::string& type) {
    return models.at("cifar10").micro_batch_time_s(64) / gpus.at(type).speed_for("cifar10");
  };
  EXPECT_NEAR(time_on("K80"), 2.5 * t / 0.3607, 1e-9 * t);
  EXPECT_NEAR(time_on("T4"), 1.8 * t, 1e-9 * t);
  EXPECT_DOUBLE_EQ(models.at("cifar10").gradient_bytes, 1.8 * plain_models.at("cifar10").gradient_bytes);
}

TEST(ModelCalibrationFile, PerTypeFactorWithoutModelFactorIsRelativeToOne) {
  const ModelCalibration c = parse_config(R"({"slowdown_by_gpu": {"bert": {"V100": 2}}})");
  const GpuCatalog gpus = c.apply(GpuCatalog::builtin_uncalibrated());
  EXPECT_DOUBLE_EQ(gpus.at("V100").speed_for("bert"),
                   GpuCatalog::builtin_uncalibrated().at("V100").speed_for("bert") / 2);
  EXPECT_DOUBLE_EQ(c.apply(ModelCatalog::builtin_uncalibrated()).at("bert").alpha_compute_s,
                   ModelCatalog::builtin_uncalibrated().at("bert").alpha_compute_s);
}

TEST(ModelCalibrationFile, ErrorsNameFilePathAndReason) {
  EXPECT_EQ(error_of(R"({"slowdown_by_gpu": {"cifar10": {"K9": 2}}})"),
            "cal.json: configurations.c.slowdown_by_gpu.cifar10.K9: unknown GPU type 'K9'");
  EXPECT_EQ(error_of(R"({"slowdown_by_gpu": {"nope": {"K80": 2}}})"),
            "cal.json: configurations.c.slowdown_by_gpu.nope: unknown model 'nope'");
  EXPECT_NE(error_of(R"({"slowdown_by_gpu": {"cifar10": {"K80": 0}}})")
                .find("cal.json: configurations.c.slowdown_by_gpu.cifar10.K80: must be a finite number > 0"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"slowdown": {"cifar10": -1}})").find("configurations.c.slowdown.cifar10: must be"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"slowdonw": {}})").find("configurations.c.slowdonw: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"overlap_fraction": {"bert": 2}})").find("overlap_fraction.bert: must be in [0, 1]"),
            std::string::npos);
  // Malformed JSON names the line.
  try {
    ModelCalibration::parse("{\n\"configurations\": {\n\"c\": {,}}}", "cal.json", "c",
                            ModelCatalog::builtin_uncalibrated(), GpuCatalog::builtin_uncalibrated());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cal.json: invalid JSON"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      ModelCalibration::parse(R"({"configurations": {}})", "cal.json", "c",
                              ModelCatalog::builtin_uncalibrated(), GpuCatalog::builtin_uncalibrated()),
      InputError);
}

TEST(ModelCalibrationFile, StartChargesGoToEveryModelWithTheDefaultForTheOthers) {
  const ModelCalibration c =
      parse_config(R"({"start_charge_s": {"bert": 120, "ncf": 0}, "start_charge_default_s": 30})");
  const ModelCatalog models = c.apply(ModelCatalog::builtin_uncalibrated());
  EXPECT_EQ(models.at("bert").start_charge_s, 120);
  EXPECT_EQ(models.at("ncf").start_charge_s, 0);  // charged, with 0 s
  EXPECT_EQ(models.at("cifar10").start_charge_s, 30);
  // Without the fields nothing is charged.
  EXPECT_FALSE(parse_config(R"({"slowdown": {"bert": 2}})")
                   .apply(ModelCatalog::builtin_uncalibrated())
                   .at("bert")
                   .start_charge_s.has_value());
  EXPECT_NE(error_of(R"({"start_charge_s": {"bert": -1}})")
                .find("configurations.c.start_charge_s.bert: must be a non-negative number"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"start_charge_default_s": "x"})").find("configurations.c.start_charge_default_s: must be"),
      std::string::npos);
}

// Every configuration shipped in core/data/model_calibration.json is valid,
// and sia-artifact carries the artifact's per-model factors.
TEST(ModelCalibrationFile, EmbeddedConfigurationsParse) {
  const auto text = embedded_file("model_calibration.json");
  ASSERT_TRUE(text);
  const std::string json(*text);
  const auto names = ModelCalibration::configuration_names(json, "model_calibration.json");
  ASSERT_FALSE(names.empty());
  for (const auto& name : names) {
    EXPECT_NO_THROW(ModelCalibration::parse(json, "model_calibration.json", name,
                                            ModelCatalog::builtin_uncalibrated(),
                                            GpuCatalog::builtin_uncalibrated()))
        << name;
  }
  const ModelCalibration sia =
      ModelCalibration::parse(json, "model_calibration.json", "sia-artifact",
                              ModelCatalog::builtin_uncalibrated(), GpuCatalog::builtin_uncalibrated());
  EXPECT_DOUBLE_EQ(sia.slowdown_for("cifar10", "T4"), 1.8);
  EXPECT_DOUBLE_EQ(sia.slowdown_for("ncf", "V100"), 1.5);
  EXPECT_TRUE(sia.start_charge_s.empty());  // slowdowns only
  const ModelCalibration full =
      ModelCalibration::parse(json, "model_calibration.json", "sia-artifact-full",
                              ModelCatalog::builtin_uncalibrated(), GpuCatalog::builtin_uncalibrated());
  EXPECT_DOUBLE_EQ(full.slowdown_for("cifar10", "T4"), 1.8);
  const ModelCatalog charged = full.apply(ModelCatalog::builtin_uncalibrated());
  EXPECT_EQ(charged.at("cifar10").start_charge_s, 50);
  EXPECT_EQ(charged.at("imagenet").start_charge_s, 250);
  EXPECT_EQ(charged.at("a3c").start_charge_s, 30);  // "any other model"
}

}  // namespace
}  // namespace vnsim
