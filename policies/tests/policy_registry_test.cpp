#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/policy_registration.hpp"

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

// Every listed default, given back as the value, builds the policy: the
// table prints defaults in the form its own reader takes.
TEST(PolicyRegistry, EveryListedDefaultReadsBack) {
  for (const std::string& name : policy_names())
    for (const PolicyParamInfo& p : policy_parameters(name)) {
      EXPECT_NO_THROW(make_policy(name, {{p.key, p.default_value}}))
          << name << " " << p.key << "=" << p.default_value;
      EXPECT_FALSE(p.range.empty()) << name << " " << p.key;
      EXPECT_FALSE(p.meaning.empty()) << name << " " << p.key;
    }
}

// A table of a made-up policy: defaults come from the Params struct,
// values are parsed and checked against the row's range.
struct ToyParams {
  double interval_s = 60;
  int count = 4;
  bool on = true;
  std::vector<double> weights = {1, 2.5};
  std::string placement = "most-free";
  std::uint64_t seed = 9;
  ResizeMode mode = ResizeMode::CheckpointRestart;
};

ParamTable<ToyParams> toy_table() {
  return ParamTable<ToyParams>()
      .number("interval_s", &ToyParams::interval_s, "round", NumberRange::positive())
      .whole("count", &ToyParams::count, 1, 8, "how many")
      .flag("on", &ToyParams::on, "switch")
      .numbers("weights", &ToyParams::weights, "weights", NumberRange::non_negative())
      .placement(&ToyParams::placement, &ToyParams::seed)
      .choice("mode", &ToyParams::mode,
              {{"in-place", ResizeMode::InPlace}, {"checkpoint-restart", ResizeMode::CheckpointRestart}},
              "resize");
}

TEST(PolicyRegistry, ParamTableRowsShowTheStructsDefaultsAndRanges) {
  std::vector<std::string> shown;
  const auto table = toy_table();
  for (const auto& row : table.rows())
    shown.push_back(row.info.key + "=" + row.info.default_value + " [" + row.info.range + "]");
  EXPECT_EQ(shown, (std::vector<std::string>{
                       "interval_s=60 [> 0]",
                       "count=4 [whole 1..8]",
                       "on=1 [0 | 1]",
                       "weights=1,2.5 [numbers >= 0, comma-separated]",
                       "placement=most-free [consolidated | first-fit | topology-aware | random | most-free]",
                       "seed=9 [unsigned integer]",
                       "mode=checkpoint-restart [in-place | checkpoint-restart]",
                   }));
}

TEST(PolicyRegistry, ParamTableRowsParseAndRejectOutOfRange) {
  const auto table = toy_table();
  auto set = [&table](ToyParams& p, const std::string& key, const std::string& value) {
    for (const auto& row : table.rows())
      if (row.info.key == key) return row.set(p, "toy", value);
    FAIL() << key;
  };
  ToyParams p;
  set(p, "interval_s", "1.5");
  set(p, "count", "8");
  set(p, "on", "0");
  set(p, "weights", "0,3");
  set(p, "placement", "random");
  set(p, "seed", "18446744073709551615");
  set(p, "mode", "in-place");
  EXPECT_EQ(p.interval_s, 1.5);
  EXPECT_EQ(p.count, 8);
  EXPECT_FALSE(p.on);
  EXPECT_EQ(p.weights, (std::vector<double>{0, 3}));
  EXPECT_EQ(p.placement, "random");
  EXPECT_EQ(p.seed, 18446744073709551615ULL);
  EXPECT_EQ(p.mode, ResizeMode::InPlace);
  for (const auto& [key, bad] : std::vector<std::pair<std::string, std::string>>{{"interval_s", "0"},
                                                                                 {"interval_s", "nan"},
                                                                                 {"interval_s", "x"},
                                                                                 {"count", "9"},
                                                                                 {"count", "2.5"},
                                                                                 {"on", "yes"},
                                                                                 {"weights", "1,-1"},
                                                                                 {"weights", "1,"},
                                                                                 {"placement", "nowhere"},
                                                                                 {"seed", "-1"},
                                                                                 {"mode", "inplace"}}) {
    try {
      set(p, key, bad);
      ADD_FAILURE() << key << "=" << bad << " was taken";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("policy 'toy' parameter '" + key + "': '" + bad + "'"), std::string::npos) << msg;
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
