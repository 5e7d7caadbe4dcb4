#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {
namespace {

TEST(PolicyRegistry, ListsEveryPolicyOnceInAFixedOrder) {
  // Several policies are added in parallel; the first five keep their order
  // and every name appears once.
  const std::vector<std::string> names = policy_names();
  ASSERT_GE(names.size(), 5U);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 5),
            (std::vector<std::string>{"fifo", "fifo-backfill", "sjf", "srtf", "tiresias"}));
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a name is listed twice";
  for (const char* name : {"gavel", "themis", "gandiva", "pollux", "sia", "optimus"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
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
  EXPECT_EQ(make_policy("pollux", {{"adaptive_batch", "0"}})->name(), "pollux");
  EXPECT_THROW(make_policy("pollux", {{"adaptive_batch", "yes"}}), InputError);
  EXPECT_THROW(make_policy("sjf", {{"placement", "nowhere"}}), InputError);
  EXPECT_THROW(make_policy("fifo", {{"placement", "random"}}), InputError);
  EXPECT_THROW(make_policy("srtf", {{"seed", "-1"}}), InputError);
  // Counts are whole numbers in range: a huge or fractional value used to be
  // cast to int unchecked (undefined behaviour).
  for (const char* bad : {"1e300", "0", "2.5", "-3"}) {
    EXPECT_THROW(make_policy("sia", {{"max_gpus_per_job", bad}}), InputError) << bad;
    EXPECT_THROW(make_policy("optimus", {{"max_gpus_per_job", bad}}), InputError) << bad;
    EXPECT_THROW(make_policy("pollux", {{"population", bad}}), InputError) << bad;
    EXPECT_THROW(make_policy("pollux", {{"generations", bad}}), InputError) << bad;
  }
  EXPECT_EQ(make_policy("sia", {{"max_gpus_per_job", "16"}})->name(), "sia");
}

TEST(PolicyRegistry, ListsParametersWithDefaults) {
  const auto params = policy_parameters("tiresias");
  ASSERT_FALSE(params.empty());
  EXPECT_EQ(params[0].key, "thresholds");
  EXPECT_EQ(params[0].default_value, "3250,7200");
  EXPECT_TRUE(policy_parameters("fifo").empty());
  EXPECT_THROW(policy_parameters("nope"), InputError);
}

// `vnsim policies` prints defaults written as text beside the code that
// really falls back to them; they must say the same thing.
TEST(PolicyRegistry, ListedDefaultsAreTheOnesTheCodeUses) {
  for (const std::string& name : policy_names()) {
    const auto code = policy_code_defaults(name);
    const auto listed = policy_parameters(name);
    EXPECT_EQ(code.size(), listed.size()) << name << ": the code reads other parameters than it lists";
    for (const PolicyParamInfo& p : listed) {
      const auto it = code.find(p.key);
      ASSERT_NE(it, code.end()) << name << ": listed parameter '" << p.key << "' is never read";
      std::string shown = p.default_value;
      if (it->second.numeric) {
        std::vector<double> values;
        std::size_t start = 0;
        while (start <= shown.size()) {
          const std::size_t comma = std::min(shown.find(',', start), shown.size());
          values.push_back(std::stod(shown.substr(start, comma - start)));
          start = comma + 1;
        }
        shown = PolicyCodeDefault::format(values);
      }
      EXPECT_EQ(shown, it->second.text) << name << " " << p.key << ": listed '" << p.default_value << "'";
    }
  }
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
