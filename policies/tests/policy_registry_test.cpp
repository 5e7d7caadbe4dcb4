#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {
namespace {

TEST(PolicyRegistry, ListsEveryPolicyOnceInAFixedOrder) {
  EXPECT_EQ(policy_names(), (std::vector<std::string>{"fifo", "fifo-backfill", "sjf", "srtf", "tiresias"}));
}

TEST(PolicyRegistry, EveryListedNameBuildsAPolicyOfThatName) {
  for (const auto& name : policy_names()) {
    auto policy = make_policy(name);
    ASSERT_NE(policy, nullptr) << name;
    EXPECT_EQ(policy->name(), name);
    EXPECT_FALSE(policy->next_timer_s(0).has_value()) << name << " has no timer before it decides";
  }
}

TEST(PolicyRegistry, ParametersAreParsedAndTyposRejected) {
  EXPECT_EQ(make_policy("tiresias", {{"thresholds", "100,200"}, {"promote_knob", "2"}})->name(), "tiresias");
  EXPECT_EQ(make_policy("srtf", {{"placement", "random"}, {"seed", "7"}})->name(), "srtf");
  EXPECT_THROW(make_policy("tiresias", {{"threshold", "100"}}), InputError);
  EXPECT_THROW(make_policy("tiresias", {{"thresholds", "100,x"}}), InputError);
  EXPECT_THROW(make_policy("tiresias", {{"thresholds", "200,100"}}), InputError);
  EXPECT_THROW(make_policy("sjf", {{"placement", "nowhere"}}), InputError);
  EXPECT_THROW(make_policy("fifo", {{"placement", "random"}}), InputError);
  EXPECT_THROW(make_policy("srtf", {{"seed", "-1"}}), InputError);
}

TEST(PolicyRegistry, ListsParametersWithDefaults) {
  const auto params = policy_parameters("tiresias");
  ASSERT_FALSE(params.empty());
  EXPECT_EQ(params[0].key, "thresholds");
  EXPECT_EQ(params[0].default_value, "3250,7200");
  EXPECT_TRUE(policy_parameters("fifo").empty());
  EXPECT_THROW(policy_parameters("nope"), InputError);
}

TEST(PolicyRegistry, UnknownNameErrorNamesItAndListsTheValidOnes) {
  try {
    make_policy("fif0");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'fif0'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fifo, fifo-backfill, sjf, srtf, tiresias"), std::string::npos) << msg;
  }
}

TEST(PolicyRegistry, NamesAreCaseSensitive) {
  EXPECT_THROW(make_policy("FIFO"), InputError);
}

}  // namespace
}  // namespace vnsim
