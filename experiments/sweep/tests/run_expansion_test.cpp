// Expansion: cartesian product in the documented order, ids that depend only
// on axis values, and replay arguments that carry every axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "vnsim/sweep/experiment_config.hpp"

namespace {

using namespace vnsim::sweep;

ExperimentConfig two_by_two_by_two() {
  return parse_experiment_config(R"({"clusters": ["testbed"], "traces": ["synthetic:5", "synthetic:7"],
                                     "policies": ["fifo", "fifo-backfill"], "seeds": [1, 2]})",
                                 "exp.json", "");
}

TEST(RunExpansion, CartesianProductSeedsFastest) {
  const auto runs = expand_runs(two_by_two_by_two());
  ASSERT_EQ(runs.size(), 8u);
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].index, i);
  EXPECT_EQ(runs[0].trace.trace, "synthetic:5");
  EXPECT_EQ(runs[0].policy.label, "fifo");
  EXPECT_EQ(runs[0].seed, 1u);
  EXPECT_EQ(runs[1].seed, 2u);
  EXPECT_EQ(runs[2].policy.label, "fifo-backfill");
  EXPECT_EQ(runs[2].seed, 1u);
  EXPECT_EQ(runs[4].trace.trace, "synthetic:7");
  EXPECT_EQ(runs[7].policy.label, "fifo-backfill");
  EXPECT_EQ(runs[7].seed, 2u);
}

TEST(RunExpansion, IdsAreStableDistinctAndIndependentOfOrder) {
  const auto runs = expand_runs(two_by_two_by_two());
  std::set<std::string> ids;
  for (const auto& r : runs) {
    EXPECT_EQ(r.id.size(), 12u);
    EXPECT_EQ(r.id.find_first_not_of("0123456789abcdef"), std::string::npos) << r.id;
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), runs.size());
  // Reordering the axes changes run indices but not the id of a given run.
  const auto reordered = expand_runs(parse_experiment_config(
      R"({"clusters": ["testbed"], "traces": ["synthetic:7", "synthetic:5"],
          "policies": ["fifo-backfill", "fifo"], "seeds": [2, 1]})",
      "other.json", "/elsewhere"));
  for (const auto& r : runs) {
    auto same = std::find_if(reordered.begin(), reordered.end(), [&](const RunSpec& o) {
      return o.trace.trace == r.trace.trace && o.policy.label == r.policy.label && o.seed == r.seed;
    });
    ASSERT_NE(same, reordered.end());
    EXPECT_EQ(same->id, r.id);
  }
  // Any axis value changes the id, including a trace option.
  RunSpec changed = runs[0];
  changed.trace.options = {{"load-scale", "2"}};
  EXPECT_NE(run_id(changed), runs[0].id);
}

TEST(RunExpansion, ReplayArgumentsCarryEveryAxis) {
  const auto runs = expand_runs(parse_experiment_config(
      R"({"clusters": ["testbed"], "traces": [{"trace": "synthetic:5", "format": "jsonl", "bad_rows": "fail",
          "options": {"max-gpus": 4}}], "policies": ["fifo-backfill"], "seeds": [9], "macro_iterations": [16]})",
      "exp.json", ""));
  ASSERT_EQ(runs.size(), 1u);
  const std::vector<std::string> expected = {"replay",
                                             "--cluster",
                                             "testbed",
                                             "--trace",
                                             "synthetic:5",
                                             "--policy",
                                             "fifo-backfill",
                                             "--seed",
                                             "9",
                                             "--out",
                                             "OUT",
                                             "--quiet",
                                             "--format",
                                             "jsonl",
                                             "--bad-rows",
                                             "fail",
                                             "--macro-iterations",
                                             "16",
                                             "--max-gpus",
                                             "4"};
  EXPECT_EQ(runs[0].replay_args("OUT"), expected);
  EXPECT_EQ(runs[0].trace_options_text(), "max-gpus=4");
}

TEST(RunExpansion, PolicyParamsReachReplayAndMakeDistinctRuns) {
  const auto runs = expand_runs(parse_experiment_config(
      R"({"clusters": ["testbed"], "traces": ["synthetic:5"],
          "policies": ["tiresias", {"name": "tiresias", "params": {"thresholds": "100", "placement": "first-fit"}}]})",
      "exp.json", ""));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].id, runs[1].id);
  EXPECT_EQ(runs[1].policy.label, "tiresias placement=first-fit thresholds=100");
  const auto args = runs[1].replay_args("OUT");
  const std::vector<std::string> params(args.begin() + 12, args.begin() + 16);
  EXPECT_EQ(params, (std::vector<std::string>{"--policy-param", "placement=first-fit", "--policy-param",
                                              "thresholds=100"}));
  // A policy without params keeps the id it had before params existed.
  EXPECT_EQ(runs[0].policy.label, "tiresias");
}

}  // namespace
