// GPU catalog: parsing, validation messages, speed overrides, and the
// built-in catalog's shape.
#include "vnsim/core/gpu_catalog.hpp"

#include <gtest/gtest.h>

#include <string>

#include "vnsim/core/error.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {
namespace {

const char* kTwoTypes = R"({
  "reference": "T4",
  "types": {
    "T4": {"memory_gib": 16, "peak_tflops": 65, "relative_speed": 1.0},
    "X": {"memory_gib": 12, "peak_tflops": 4, "relative_speed": 0.5,
          "speed_by_model": {"cifar10": 0.25}, "memory_bandwidth_GBps": 240}
  }
})";

std::string parse_error(const std::string& text) {
  try {
    GpuCatalog::parse(text, "gpus.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string with_x(const std::string& x_body) {
  return R"({"reference": "T4", "types": {"T4": {"memory_gib": 16, "peak_tflops": 65, "relative_speed": 1},
            "X": )" +
         x_body + "}}";
}

TEST(GpuCatalog, ParsesUnitsAndOverrides) {
  const GpuCatalog c = GpuCatalog::parse(kTwoTypes, "gpus.json");
  EXPECT_EQ(c.reference(), "T4");
  EXPECT_EQ(c.names(), (std::vector<std::string>{"T4", "X"}));
  const GpuType& x = c.at("X");
  EXPECT_DOUBLE_EQ(x.memory_bytes, 12.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(x.peak_flops, 4e12);
  EXPECT_DOUBLE_EQ(x.speed_for("cifar10"), 0.25);  // override
  EXPECT_DOUBLE_EQ(x.speed_for("bert"), 0.5);      // default
  EXPECT_DOUBLE_EQ(c.at("T4").speed_for("cifar10"), 1.0);
  EXPECT_EQ(c.find("nope"), nullptr);
}

TEST(GpuCatalog, UnknownTypeNamesItAndTheKnownOnes) {
  const GpuCatalog c = GpuCatalog::parse(kTwoTypes, "gpus.json");
  try {
    c.at("Z100");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'Z100'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("T4, X"), std::string::npos);
  }
}

TEST(GpuCatalog, ValidationNamesFileFieldAndReason) {
  EXPECT_EQ(parse_error(with_x(R"({"peak_tflops": 4, "relative_speed": 0.5})")),
            "gpus.json: types.X.memory_gib: missing required field");
  EXPECT_EQ(parse_error(with_x(R"({"memory_gib": "12", "peak_tflops": 4, "relative_speed": 0.5})")),
            "gpus.json: types.X.memory_gib: must be a number");
  EXPECT_EQ(parse_error(with_x(R"({"memory_gib": 12, "peak_tflops": 4, "relative_speed": -1})")),
            "gpus.json: types.X.relative_speed: must be a finite number > 0, got -1");
  EXPECT_EQ(parse_error(with_x(
                R"({"memory_gib": 12, "peak_tflops": 4, "relative_speed": 1, "speed_by_model": {"m": 0}})")),
            "gpus.json: types.X.speed_by_model.m: must be a finite number > 0, got 0");
  EXPECT_EQ(parse_error(with_x(R"({"memory_gib": 12, "peak_tflops": 4, "relative_speed": 1, "speed": 2})")),
            "gpus.json: types.X.speed: unknown field");
  EXPECT_EQ(parse_error(with_x(R"([1])")), "gpus.json: types.X: must be an object");
}

TEST(GpuCatalog, ReferenceMustExistAndBeTheUnit) {
  EXPECT_EQ(parse_error(R"({"reference": "V100", "types": {"T4": {"memory_gib": 16, "peak_tflops": 65,
            "relative_speed": 1}}})"),
            "gpus.json: reference: 'V100' is not one of the types");
  EXPECT_EQ(parse_error(R"({"reference": "T4", "types": {"T4": {"memory_gib": 16, "peak_tflops": 65,
            "relative_speed": 2}}})"),
            "gpus.json: types.T4: the reference type must have relative_speed 1 and no speed_by_model");
  EXPECT_EQ(parse_error(R"({"types": {"T4": {"memory_gib": 16, "peak_tflops": 65, "relative_speed": 1}}})"),
            "gpus.json: reference: missing required field");
  EXPECT_EQ(parse_error(R"({"reference": "T4", "types": {}})"),
            "gpus.json: types: must be a non-empty object");
}

TEST(GpuCatalog, InvalidJsonReportsLine) {
  const std::string msg = parse_error("{\n  \"reference\": \"T4\",\n  \"types\": {,}\n}");
  EXPECT_NE(msg.find("gpus.json: (document): invalid JSON"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

TEST(GpuCatalog, BuiltinHasTheEightTypesWithT4AsReference) {
  const GpuCatalog& c = GpuCatalog::builtin();
  EXPECT_EQ(c.names(), (std::vector<std::string>{"A10", "A100", "H100", "K80", "P100", "P40", "T4", "V100"}));
  EXPECT_EQ(c.reference(), "T4");
  EXPECT_DOUBLE_EQ(c.at("T4").relative_speed, 1.0);
  EXPECT_DOUBLE_EQ(c.at("K80").memory_bytes, 12.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(c.at("H100").memory_bytes, 80.0 * 1024 * 1024 * 1024);
}

TEST(GpuCatalog, BuiltinSpeedsFollowGenerationsAndNameKnownModels) {
  const GpuCatalog& c = GpuCatalog::builtin();
  const ModelCatalog& models = ModelCatalog::builtin();
  for (const auto& model : models.names()) {
    EXPECT_LT(c.at("K80").speed_for(model), c.at("P100").speed_for(model)) << model;
    EXPECT_LT(c.at("P40").speed_for(model), c.at("P100").speed_for(model)) << model;
    EXPECT_LT(c.at("V100").speed_for(model), c.at("A100").speed_for(model)) << model;
    EXPECT_LT(c.at("A100").speed_for(model), c.at("H100").speed_for(model)) << model;
    EXPECT_GT(c.at("V100").speed_for(model), 1.0) << model;
  }
  for (const auto& name : c.names()) {
    for (const auto& [model, speed] : c.at(name).speed_by_model) {
      EXPECT_NE(models.find(model), nullptr) << name << " overrides unknown model " << model;
    }
  }
}

}  // namespace
}  // namespace vnsim
