#pragma once
// An experiment config (docs/EXPERIMENTS.md) and its expansion into runs:
// the cartesian product of its axes, in a fixed order, each run with a stable
// id derived from its axis values only.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vnsim::sweep {

// The folder `${VNSIM_SHARED}` stands for: the environment variable
// VNSIM_SHARED when set and non-empty, else `shared` beside the project's
// source folder (fixed at build time), as the shared data is laid out here.
std::string default_shared_root();

// `text` with each `${VNSIM_SHARED}` replaced by `shared_root`. Throws
// InputError for any other `${...}`, so a typo is not taken as a path.
std::string expand_shared(const std::string& text, const std::string& shared_root);

struct TraceAxis {
  std::string label;     // name of this axis value in results.csv
  std::string trace;     // as written in the config
  std::string resolved;  // what replay reads (relative paths resolved against the config's folder)
  std::string format;    // "" = detect
  std::string bad_rows;  // "" = replay's default
  // Trace options of `vnsim replay` without the leading "--", sorted by name.
  std::vector<std::pair<std::string, std::string>> options;
};

struct PolicyAxis {
  std::string name;  // a registered policy
  // `--policy-param` values, sorted by parameter name.
  std::vector<std::pair<std::string, std::string>> params;
  // Engine options of this policy's runs (docs/EXPERIMENTS.md, "engine"):
  // fluid rings are the default ring engine; actor_rings and quiet_rings
  // opt into the actor engines (docs/PERFORMANCE.md, "Ring engines").
  // The options set (engine_options.hpp), by key: the value `vnsim replay`
  // takes, "" for a switch that is on. A switch set to false is absent.
  std::vector<std::pair<std::string, std::string>> engine;
  // The value of an engine option, or nullptr when it is not set.
  const std::string* engine_option(std::string_view key) const {
    for (const auto& [k, v] : engine)
      if (k == key) return &v;
    return nullptr;
  }
  // The name, then " k=v" per parameter, then the engine options in
  // brackets; results.csv's policy column.
  std::string label;
};

struct ClusterAxis {
  std::string name;      // as written: a preset or a file
  std::string resolved;  // what replay reads
};

struct ExperimentConfig {
  std::string name;
  std::vector<ClusterAxis> clusters;
  std::vector<TraceAxis> traces;
  std::vector<PolicyAxis> policies;
  std::vector<int> macro_iterations;  // 0 = the engine's default
  std::vector<std::uint64_t> seeds;
  // Wall-clock budget of each run in seconds, 0 = none; `vnsim sweep
  // --run-timeout` overrides it. Not an axis: it never changes a run's id.
  double run_timeout_s = 0;
  // Markdown lines `vnsim report` shows at the top of the report: what the
  // experiment's results mean. Not an axis: it never changes a run's id.
  std::vector<std::string> notes;
};

struct RunSpec {
  std::size_t index = 0;
  std::string id;
  ClusterAxis cluster;
  TraceAxis trace;
  PolicyAxis policy;
  int macro_iterations = 0;
  std::uint64_t seed = 0;

  // Arguments of `vnsim replay` (without the program name) writing to out_dir.
  std::vector<std::string> replay_args(const std::string& out_dir) const;
  // "k=v k=v" of the trace options, "" when there are none.
  std::string trace_options_text() const;
};

// `source` names the config in error messages; `${VNSIM_SHARED}` in a cluster,
// trace or model-rules path becomes `shared_root` (and the file must then
// exist); relative paths are resolved against `base_dir`. Throws InputError
// "<source>: <json path>: why".
ExperimentConfig parse_experiment_config(const std::string& json_text, const std::string& source,
                                         const std::filesystem::path& base_dir,
                                         const std::string& shared_root = default_shared_root());
// Reads `file` with base_dir = its folder and shared_root = default_shared_root().
ExperimentConfig load_experiment_config(const std::filesystem::path& file);

// Order: clusters, traces, policies, macro_iterations, seeds (seeds vary fastest).
std::vector<RunSpec> expand_runs(const ExperimentConfig& config);

// 12 hex digits of a 64-bit hash (FNV-1a, then a mixing finaliser) of the
// run's axis values as written in the config.
std::string run_id(const RunSpec& run);

}  // namespace vnsim::sweep
