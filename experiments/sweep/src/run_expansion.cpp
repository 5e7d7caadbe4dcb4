// Cartesian expansion of a config into runs, and the stable run ids that name
// their directories (so a re-run finds the runs it already finished).
#include <cstdio>
#include <map>

#include "vnsim/core/error.hpp"
#include "vnsim/sweep/engine_options.hpp"
#include "vnsim/sweep/experiment_config.hpp"

namespace vnsim::sweep {

std::string RunSpec::trace_options_text() const {
  std::string out;
  for (const auto& [k, v] : trace.options) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::vector<std::string> RunSpec::replay_args(const std::string& out_dir) const {
  std::vector<std::string> a = {
      "replay",    "--cluster", cluster.resolved,     "--trace", trace.resolved, "--policy",
      policy.name, "--seed",    std::to_string(seed), "--out",   out_dir,        "--quiet"};
  for (const auto& [k, v] : policy.params) a.insert(a.end(), {"--policy-param", k + "=" + v});
  if (!trace.format.empty()) a.insert(a.end(), {"--format", trace.format});
  if (!trace.bad_rows.empty()) a.insert(a.end(), {"--bad-rows", trace.bad_rows});
  if (macro_iterations > 0) a.insert(a.end(), {"--macro-iterations", std::to_string(macro_iterations)});
  for (const auto& [key, value] : policy.engine) {
    a.push_back("--" + std::string(find_engine_option(key)->flag));
    if (!value.empty()) a.push_back(value);
  }
  for (const auto& [k, v] : trace.options) a.insert(a.end(), {"--" + k, v});
  return a;
}

std::string run_id(const RunSpec& run) {
  // Axis values as written in the config (not resolved paths), separated by a
  // byte that cannot occur in JSON text unescaped, so ids do not depend on
  // where the config lives and distinct runs cannot serialise alike.
  std::string key = run.cluster.name + '\x1f' + run.trace.trace + '\x1f' + run.trace.format + '\x1f' +
                    run.trace.bad_rows + '\x1f' + run.trace_options_text() + '\x1f' + run.policy.label +
                    '\x1f' + std::to_string(run.macro_iterations) + '\x1f' + std::to_string(run.seed);
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  // MurmurHash3's finaliser: FNV alone changes few high bits when only the
  // last byte differs (seed 1 vs 2), which makes ids hard to tell apart.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, 12);
}

std::vector<RunSpec> expand_runs(const ExperimentConfig& config) {
  std::vector<RunSpec> runs;
  std::map<std::string, std::size_t> ids;
  for (const auto& cluster : config.clusters)
    for (const auto& trace : config.traces)
      for (const auto& policy : config.policies)
        for (int macro : config.macro_iterations)
          for (std::uint64_t seed : config.seeds) {
            RunSpec r;
            r.index = runs.size();
            r.cluster = cluster;
            r.trace = trace;
            r.policy = policy;
            r.macro_iterations = macro;
            r.seed = seed;
            r.id = run_id(r);
            auto [it, fresh] = ids.emplace(r.id, r.index);
            if (!fresh)
              throw InputError("runs " + std::to_string(it->second) + " and " + std::to_string(r.index) +
                               " have the same id " + r.id + " (identical axis values, or a hash collision)");
            runs.push_back(std::move(r));
          }
  return runs;
}

}  // namespace vnsim::sweep
