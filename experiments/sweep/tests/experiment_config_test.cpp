// Config parsing: defaults, path resolution, and one clear error (JSON path
// and reason) for each kind of bad field.
#include "vnsim/sweep/experiment_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "vnsim/core/error.hpp"

namespace {

using vnsim::sweep::ExperimentConfig;
using vnsim::sweep::parse_experiment_config;

ExperimentConfig parse(const std::string& text) {
  return parse_experiment_config(text, "exp.json", "/base");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const vnsim::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExperimentConfig, DefaultsAndResolvedPaths) {
  const auto c = parse(R"({"clusters": ["testbed", "my_cluster.json"],
                           "traces": ["synthetic:10", {"trace": "t/philly.csv", "options": {"load-scale": 1.5, "vc": "a,b"}}],
                           "policies": ["fifo"]})");
  EXPECT_EQ(c.name, "sweep");
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0].resolved, "testbed");  // presets are not paths
  EXPECT_EQ(c.clusters[1].resolved, "/base/my_cluster.json");
  EXPECT_EQ(c.traces[0].resolved, "synthetic:10");
  EXPECT_EQ(c.traces[1].resolved, "/base/t/philly.csv");
  ASSERT_EQ(c.traces[1].options.size(), 2u);
  EXPECT_EQ(c.traces[1].options[0], (std::pair<std::string, std::string>{"load-scale", "1.5"}));
  EXPECT_EQ(c.traces[1].options[1], (std::pair<std::string, std::string>{"vc", "a,b"}));
  EXPECT_EQ(c.traces[1].label, "t/philly.csv load-scale=1.5 vc=a,b");
  EXPECT_EQ(c.seeds, std::vector<std::uint64_t>{1});
  EXPECT_EQ(c.macro_iterations, std::vector<int>{0});
  EXPECT_EQ(c.run_timeout_s, 0);
}

// Notes are Markdown lines for the report, not an axis: they keep every run id.
TEST(ExperimentConfig, NotesAreReadAndLeaveRunIdsAlone) {
  const std::string axes =
      R"("clusters": ["testbed"], "traces": ["synthetic:5"], "policies": ["fifo", "sjf"])";
  const auto plain = parse("{" + axes + "}");
  const auto noted = parse("{" + axes + R"(, "notes": ["# Why", "", "because"]})");
  EXPECT_TRUE(plain.notes.empty());
  EXPECT_EQ(noted.notes, (std::vector<std::string>{"# Why", "", "because"}));
  const auto a = vnsim::sweep::expand_runs(plain);
  const auto b = vnsim::sweep::expand_runs(noted);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
}

// A run's budget is not an axis: giving one keeps every run id.
TEST(ExperimentConfig, RunTimeoutIsReadAndLeavesRunIdsAlone) {
  const std::string axes =
      R"("clusters": ["testbed"], "traces": ["synthetic:5"], "policies": ["fifo", "sjf"])";
  const auto plain = parse("{" + axes + "}");
  const auto timed = parse("{" + axes + R"(, "run_timeout_s": 7200})");
  EXPECT_EQ(timed.run_timeout_s, 7200);
  const auto a = vnsim::sweep::expand_runs(plain);
  const auto b = vnsim::sweep::expand_runs(timed);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
}

TEST(ExperimentConfig, PolicyObjectsSeedsAndMacroIterations) {
  const auto c =
      parse(R"({"name": "x", "clusters": ["testbed"], "traces": [{"trace": "synthetic:5", "label": "tiny"}],
                           "policies": [{"name": "fifo-backfill", "params": {}}, "fifo"],
                           "seeds": [3, 0], "macro_iterations": [null, 8]})");
  EXPECT_EQ(c.name, "x");
  EXPECT_EQ(c.traces[0].label, "tiny");
  ASSERT_EQ(c.policies.size(), 2u);
  EXPECT_EQ(c.policies[0].label, "fifo-backfill");
  EXPECT_EQ(c.policies[1].name, "fifo");
  EXPECT_TRUE(c.policies[1].params.empty());
  EXPECT_EQ(c.seeds, (std::vector<std::uint64_t>{3, 0}));
  EXPECT_EQ(c.macro_iterations, (std::vector<int>{0, 8}));
}

// Engine options ride with a policy: its runs get the replay flags, and its
// label (results.csv) says so, so the same policy with and without them are
// two distinct runs.
TEST(ExperimentConfig, PolicyEngineOptionsBecomeReplayFlagsAndLabel) {
  const auto c = parse(R"({"clusters": ["testbed"], "traces": ["synthetic:5"],
                           "policies": ["sia", {"name": "sia", "engine": {"quiet_rings": true,
                                                                         "contended_macro_s": 60}}]})");
  ASSERT_EQ(c.policies.size(), 2u);
  EXPECT_EQ(c.policies[0].engine_option("quiet_rings"), nullptr);
  EXPECT_EQ(c.policies[0].label, "sia");
  EXPECT_NE(c.policies[1].engine_option("quiet_rings"), nullptr);
  EXPECT_EQ(*c.policies[1].engine_option("contended_macro_s"), "60");
  EXPECT_EQ(c.policies[1].label, "sia [contended-macro-s=60 quiet-rings]");
  const auto runs = vnsim::sweep::expand_runs(c);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].id, runs[1].id);
  const auto args = runs[1].replay_args("OUT");
  const auto has = [&](const std::vector<std::string>& want) {
    return std::search(args.begin(), args.end(), want.begin(), want.end()) != args.end();
  };
  EXPECT_TRUE(has({"--quiet-rings"}));
  EXPECT_TRUE(has({"--contended-macro-s", "60"}));
  const auto plain = runs[0].replay_args("OUT");
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--quiet-rings"), plain.end());
}

TEST(ExperimentConfig, FluidRingsBecomeTheReplayFlagAndLabel) {
  const auto c = parse(R"({"clusters": ["testbed"], "traces": ["synthetic:5"],
                           "policies": [{"name": "pollux", "engine": {"fluid_rings": true}},
                                        {"name": "pollux", "engine": {"fluid_rings": false}}]})");
  ASSERT_EQ(c.policies.size(), 2u);
  EXPECT_NE(c.policies[0].engine_option("fluid_rings"), nullptr);
  EXPECT_EQ(c.policies[0].label, "pollux [fluid-rings]");
  EXPECT_EQ(c.policies[1].engine_option("fluid_rings"), nullptr);
  EXPECT_EQ(c.policies[1].label, "pollux");
  const auto runs = vnsim::sweep::expand_runs(c);
  ASSERT_EQ(runs.size(), 2u);
  const auto fluid = runs[0].replay_args("OUT");
  EXPECT_NE(std::find(fluid.begin(), fluid.end(), "--fluid-rings"), fluid.end());
  const auto plain = runs[1].replay_args("OUT");
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--fluid-rings"), plain.end());
}

TEST(ExperimentConfig, ActorRingsBecomeTheReplayFlagAndLabel) {
  const auto c = parse(R"({"clusters": ["testbed"], "traces": ["synthetic:5"],
                           "policies": [{"name": "fifo", "engine": {"actor_rings": true}}, "fifo"]})");
  ASSERT_EQ(c.policies.size(), 2u);
  EXPECT_NE(c.policies[0].engine_option("actor_rings"), nullptr);
  EXPECT_EQ(c.policies[0].label, "fifo [actor-rings]");
  EXPECT_EQ(c.policies[1].engine_option("actor_rings"), nullptr);
  const auto runs = vnsim::sweep::expand_runs(c);
  ASSERT_EQ(runs.size(), 2u);
  const auto actors = runs[0].replay_args("OUT");
  EXPECT_NE(std::find(actors.begin(), actors.end(), "--actor-rings"), actors.end());
  const auto plain = runs[1].replay_args("OUT");
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "--actor-rings"), plain.end());
}

TEST(ExperimentConfig, ErrorsNameTheFileThePathAndTheReason) {
  const std::string base = R"("clusters": ["testbed"], "traces": ["synthetic:5"])";
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"{", "exp.json: not valid JSON"},
      {"[]", "exp.json: $: expected a JSON object"},
      {R"({"traces": ["synthetic:5"], "policies": ["fifo"]})", "exp.json: clusters: missing"},
      {R"({"clusters": [], "traces": ["synthetic:5"], "policies": ["fifo"]})",
       "exp.json: clusters: expected a non-empty array"},
      {"{" + base + R"(, "policies": ["fifo", "nope"]})", "exp.json: policies[1]: unknown policy 'nope'"},
      {"{" + base + R"(, "policies": ["fifo"], "seeds": [1, -2]})", "exp.json: seeds[1]: must be >= 0"},
      {"{" + base + R"(, "policies": ["fifo"], "seeds": [1, 1]})",
       "exp.json: seeds[1]: repeats an earlier value '1'"},
      {"{" + base + R"(, "policies": ["fifo"], "seeds": ["1"]})", "exp.json: seeds[0]: expected an integer"},
      {"{" + base + R"(, "policies": ["fifo"], "macro_iterations": [0]})",
       "exp.json: macro_iterations[0]: must be >= 1"},
      {"{" + base + R"(, "policies": ["fifo"], "sedes": [1]})", "exp.json: sedes: unknown field"},
      {"{" + base + R"(, "policies": [{"name": "fifo", "params": {"k": "1"}}]})",
       "exp.json: policies[0].params.k: policy 'fifo' has no such parameter (it has: none)"},
      {"{" + base + R"(, "policies": [{"name": "sjf", "params": {"placement": "scattered"}}]})",
       "exp.json: policies[0].params: policy 'sjf' parameter 'placement': 'scattered' is not one of "
       "consolidated"},
      {R"({"clusters": ["testbed"], "traces": [{"trace": "synthetic:5", "options": {"load_scale": 2}}], "policies": ["fifo"]})",
       "exp.json: traces[0].options.load_scale: unknown trace option"},
      {R"({"clusters": ["testbed"], "traces": [{"label": "x"}], "policies": ["fifo"]})",
       "exp.json: traces[0].trace: missing"},
      {R"({"clusters": ["testbed"], "traces": [{"trace": "synthetic:5", "bad_rows": "ignore"}], "policies": ["fifo"]})",
       "exp.json: traces[0].bad_rows: expected \"skip\" or \"fail\""},
      {R"({"clusters": [3], "traces": ["synthetic:5"], "policies": ["fifo"]})",
       "exp.json: clusters[0]: expected a string"},
      {"{" + base + R"(, "policies": [{"name": "sia", "engine": {"quiet_rings": 1}}]})",
       "exp.json: policies[0].engine.quiet_rings: expected true or false, got 1"},
      {"{" + base + R"(, "policies": ["fifo"], "notes": "one line"})",
       "exp.json: notes: expected an array of strings"},
      {"{" + base + R"(, "policies": ["fifo"], "notes": ["a", 2]})",
       "exp.json: notes[1]: expected a string, got 2"},
      {"{" + base + R"(, "policies": ["fifo"], "run_timeout_s": -1})",
       "exp.json: run_timeout_s: must be >= 0"},
      {"{" + base + R"(, "policies": ["fifo"], "run_timeout_s": 1.5})",
       "exp.json: run_timeout_s: expected an integer"},
      {"{" + base + R"(, "policies": [{"name": "sia", "engine": {"fluid_rings": "yes"}}]})",
       "exp.json: policies[0].engine.fluid_rings: expected true or false, got \"yes\""},
      {"{" + base + R"(, "policies": [{"name": "sia", "engine": {"contended_macro_s": -5}}]})",
       "exp.json: policies[0].engine.contended_macro_s: expected a number >= 0, got -5"},
      {"{" + base + R"(, "policies": [{"name": "sia", "engine": {"macro": 5}}]})",
       "exp.json: policies[0].engine.macro: unknown engine option"},
      {"{" + base +
           R"(, "policies": [{"name": "sia", "engine": {"fluid_rings": true, "quiet_rings": true}}]})",
       "exp.json: policies[0].engine: fluid_rings cannot be combined with actor_rings or quiet_rings"},
  };
  for (const auto& c : cases) {
    const std::string msg = error_of(c.text);
    EXPECT_EQ(msg.rfind(c.expected, 0), 0u) << "config: " << c.text << "\nerror: " << msg;
  }
}

}  // namespace
