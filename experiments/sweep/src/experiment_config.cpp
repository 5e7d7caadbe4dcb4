// Parsing and validation of experiment configs; every error names the config
// file and the JSON path of the bad field.
#include "vnsim/sweep/experiment_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sweep/engine_options.hpp"

namespace vnsim::sweep {
namespace {

using nlohmann::json;

// The value-taking trace options of `vnsim replay` (experiments/cli/trace_options.cpp),
// and its VC quota options (they apply to the trace's jobs).
const std::set<std::string>& trace_option_names() {
  static const std::set<std::string> names = {
      "from-s",        "to-s",       "vc",          "user",        "status",    "min-gpus", "max-gpus",
      "arrival-scale", "load-scale", "model-rules", "failed-jobs", "vc-quotas", "vc-borrow"};
  return names;
}

const std::set<std::string> kTopLevelKeys = {"name",  "clusters",         "traces",        "policies",
                                             "seeds", "macro_iterations", "run_timeout_s", "notes"};

class Parser {
 public:
  Parser(std::string source, std::filesystem::path base_dir, std::string shared_root)
      : source_(std::move(source)), base_dir_(std::move(base_dir)), shared_root_(std::move(shared_root)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw InputError(source_ + ": " + path + ": " + reason);
  }

  // `json_path` names the field in errors. A path using ${VNSIM_SHARED} must
  // exist: the shared data is not part of the repository, so a missing file
  // means a wrong or missing VNSIM_SHARED, better reported now than by every run.
  std::string resolve(const std::string& path, const std::string& json_path) const {
    std::string expanded;
    try {
      expanded = expand_shared(path, shared_root_);
    } catch (const InputError& e) {
      fail(json_path, e.what());
    }
    std::filesystem::path p(expanded);
    const std::string out =
        p.is_absolute() || base_dir_.empty() ? expanded : (base_dir_ / p).lexically_normal().string();
    if (expanded != path && !std::filesystem::exists(out))
      fail(json_path, "'" + path + "' is '" + out +
                          "', which does not exist (set VNSIM_SHARED to the folder of the shared data: "
                          "traces/, profiles/)");
    return out;
  }

  std::string text(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, got " + v.dump());
    const std::string s = v.get<std::string>();
    if (s.empty()) fail(path, "must not be empty");
    return s;
  }

  // Numbers are accepted for convenience and printed in their shortest round-trip form.
  std::string scalar_text(const json& v, const std::string& path) const {
    if (v.is_number()) return v.dump();
    return text(v, path);
  }

  const json& non_empty_array(const json& root, const std::string& key) const {
    if (!root.contains(key)) fail(key, "missing (a non-empty array is required)");
    const json& a = root.at(key);
    if (!a.is_array() || a.empty()) fail(key, "expected a non-empty array, got " + a.dump());
    return a;
  }

  template <class T, class Key>
  void reject_duplicates(const std::vector<T>& values, Key key, const std::string& path) const {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!seen.insert(key(values[i])).second)
        fail(path + "[" + std::to_string(i) + "]", "repeats an earlier value '" + key(values[i]) + "'");
  }

  ClusterAxis cluster(const json& v, const std::string& path) const {
    ClusterAxis c;
    c.name = text(v, path);
    const auto presets = cluster_preset_names();
    const bool preset = std::find(presets.begin(), presets.end(), c.name) != presets.end();
    c.resolved = preset ? c.name : resolve(c.name, path);
    return c;
  }

  TraceAxis trace(const json& v, const std::string& path) const {
    TraceAxis t;
    if (v.is_string()) {
      t.trace = text(v, path);
    } else if (v.is_object()) {
      for (const auto& [key, value] : v.items()) {
        const std::string p = path + "." + key;
        if (key == "trace")
          t.trace = text(value, p);
        else if (key == "label")
          t.label = text(value, p);
        else if (key == "format")
          t.format = text(value, p);
        else if (key == "bad_rows") {
          t.bad_rows = text(value, p);
          if (t.bad_rows != "skip" && t.bad_rows != "fail") fail(p, "expected \"skip\" or \"fail\"");
        } else if (key == "options") {
          if (!value.is_object()) fail(p, "expected an object of trace options, got " + value.dump());
          for (const auto& [name, option] : value.items()) {
            if (!trace_option_names().count(name))
              fail(p + "." + name, "unknown trace option (see docs/EXPERIMENTS.md for the list)");
            std::string s = scalar_text(option, p + "." + name);
            if (name == "model-rules" || (name == "vc-quotas" && s != "trace"))
              s = resolve(s, p + "." + name);
            t.options.emplace_back(name, s);  // items() iterates keys sorted
          }
        } else {
          fail(p, "unknown field (expected trace, label, format, bad_rows, options)");
        }
      }
      if (t.trace.empty()) fail(path + ".trace", "missing");
    } else {
      fail(path, "expected a trace string or an object, got " + v.dump());
    }
    t.resolved = t.trace.rfind("synthetic", 0) == 0
                     ? t.trace
                     : resolve(t.trace, v.is_object() ? path + ".trace" : path);
    if (t.label.empty()) {
      t.label = t.trace;
      for (const auto& [k, val] : t.options) t.label += " " + k + "=" + val;
    }
    return t;
  }

  PolicyAxis policy(const json& v, const std::string& path) const {
    PolicyAxis axis;
    std::string& name = axis.name;
    const json* params = nullptr;
    const json* engine = nullptr;
    if (v.is_object()) {
      for (const auto& [key, value] : v.items()) {
        if (key == "name")
          name = text(value, path + ".name");
        else if (key == "params" || key == "engine") {
          if (!value.is_object()) fail(path + "." + key, "expected an object");
          (key == "params" ? params : engine) = &value;
        } else {
          fail(path + "." + key, "unknown field (expected name, params, engine)");
        }
      }
      if (name.empty()) fail(path + ".name", "missing");
    } else {
      name = text(v, path);
    }
    const auto names = policy_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string known;
      for (const auto& n : names) known += " " + n;
      fail(path, "unknown policy '" + name + "' (known:" + known + ")");
    }
    axis.label = name;
    if (params) {
      std::set<std::string> known;
      for (const auto& info : policy_parameters(name)) known.insert(info.key);
      for (const auto& [key, value] : params->items()) {  // items() iterates keys sorted
        const std::string p = path + ".params." + key;
        if (!known.count(key)) {
          std::string list;
          for (const auto& k : known) list += " " + k;
          fail(p, "policy '" + name + "' has no such parameter (it has:" + (list.empty() ? " none" : list) +
                      ")");
        }
        axis.params.emplace_back(key, scalar_text(value, p));
        axis.label += " " + key + "=" + axis.params.back().second;
      }
      // Build the policy once so a bad value fails here, before any run starts.
      try {
        make_policy(name, PolicyParams(axis.params.begin(), axis.params.end()));
      } catch (const InputError& e) {
        fail(path + ".params", e.what());
      }
    }
    if (engine) engine_options(*engine, path + ".engine", axis);
    return axis;
  }

  void engine_options(const json& engine, const std::string& path, PolicyAxis& axis) const {
    std::string shown, known;
    for (const EngineOption& o : sweep::engine_options())
      known += (known.empty() ? "" : ", ") + std::string(o.key);
    for (const auto& [key, value] : engine.items()) {  // sorted by key, as the table
      const std::string p = path + "." + key;
      const EngineOption* option = find_engine_option(key);
      if (option == nullptr) fail(p, "unknown engine option (expected " + known + ")");
      // Shown in the label by its replay flag's name.
      const std::string flag(option->flag);
      if (option->kind == EngineOptionKind::Switch) {
        if (!value.is_boolean()) fail(p, "expected true or false, got " + value.dump());
        if (!value.get<bool>()) continue;
        axis.engine.emplace_back(key, "");
        shown += (shown.empty() ? "" : " ") + flag;
      } else {
        if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
          fail(p, "expected a number >= 0, got " + value.dump());
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", value.get<double>());
        axis.engine.emplace_back(key, buf);
        shown += (shown.empty() ? "" : " ") + flag + "=" + value.dump();
      }
    }
    if (axis.engine_option("fluid_rings") &&
        (axis.engine_option("actor_rings") || axis.engine_option("quiet_rings")))
      fail(path, "fluid_rings cannot be combined with actor_rings or quiet_rings: pick one ring engine");
    if (!shown.empty()) axis.label += " [" + shown + "]";
  }

  long long integer(const json& v, const std::string& path, long long min_value) const {
    if (!v.is_number_integer()) fail(path, "expected an integer, got " + v.dump());
    if (v.is_number_unsigned() && v.get<unsigned long long>() > 9007199254740992ULL)
      fail(path, "too large (at most 2^53)");
    const long long n = v.get<long long>();
    if (n < min_value) fail(path, "must be >= " + std::to_string(min_value));
    return n;
  }

  ExperimentConfig parse(const json& root) const {
    if (!root.is_object()) fail("$", "expected a JSON object");
    for (const auto& [key, value] : root.items())
      if (!kTopLevelKeys.count(key)) fail(key, "unknown field");
    ExperimentConfig c;
    c.name = root.contains("name") ? text(root.at("name"), "name") : "sweep";
    if (c.name.find_first_of("/\\") != std::string::npos) fail("name", "must not contain '/' or '\\'");
    const json& clusters = non_empty_array(root, "clusters");
    for (std::size_t i = 0; i < clusters.size(); ++i)
      c.clusters.push_back(cluster(clusters[i], "clusters[" + std::to_string(i) + "]"));
    reject_duplicates(
        c.clusters, [](const ClusterAxis& a) { return a.name; }, "clusters");
    const json& traces = non_empty_array(root, "traces");
    for (std::size_t i = 0; i < traces.size(); ++i)
      c.traces.push_back(trace(traces[i], "traces[" + std::to_string(i) + "]"));
    reject_duplicates(
        c.traces, [](const TraceAxis& t) { return t.label; }, "traces");
    const json& policies = non_empty_array(root, "policies");
    for (std::size_t i = 0; i < policies.size(); ++i)
      c.policies.push_back(policy(policies[i], "policies[" + std::to_string(i) + "]"));
    reject_duplicates(
        c.policies, [](const PolicyAxis& p) { return p.label; }, "policies");
    if (root.contains("seeds")) {
      const json& seeds = non_empty_array(root, "seeds");
      for (std::size_t i = 0; i < seeds.size(); ++i)
        c.seeds.push_back(
            static_cast<std::uint64_t>(integer(seeds[i], "seeds[" + std::to_string(i) + "]", 0)));
    } else {
      c.seeds = {1};
    }
    reject_duplicates(
        c.seeds, [](std::uint64_t s) { return std::to_string(s); }, "seeds");
    if (root.contains("macro_iterations")) {
      const json& m = non_empty_array(root, "macro_iterations");
      for (std::size_t i = 0; i < m.size(); ++i)
        c.macro_iterations.push_back(
            m[i].is_null()
                ? 0
                : static_cast<int>(integer(m[i], "macro_iterations[" + std::to_string(i) + "]", 1)));
    } else {
      c.macro_iterations = {0};
    }
    reject_duplicates(
        c.macro_iterations, [](int m) { return std::to_string(m); }, "macro_iterations");
    if (root.contains("run_timeout_s"))
      c.run_timeout_s = static_cast<double>(integer(root.at("run_timeout_s"), "run_timeout_s", 0));
    if (root.contains("notes")) {
      const json& notes = root.at("notes");
      if (!notes.is_array()) fail("notes", "expected an array of strings (Markdown lines)");
      for (std::size_t i = 0; i < notes.size(); ++i) {
        // An empty line is a Markdown paragraph break, so it is allowed here.
        if (!notes[i].is_string())
          fail("notes[" + std::to_string(i) + "]", "expected a string, got " + notes[i].dump());
        c.notes.push_back(notes[i].get<std::string>());
      }
    }
    return c;
  }

 private:
  std::string source_;
  std::filesystem::path base_dir_;
  std::string shared_root_;
};

constexpr std::string_view kSharedVariable = "${VNSIM_SHARED}";

}  // namespace

std::string default_shared_root() {
  // Absolute, so that relative paths in a config (resolved against the
  // config's folder) do not change what a relative VNSIM_SHARED means.
  if (const char* env = std::getenv("VNSIM_SHARED"); env != nullptr && *env != '\0')
    return std::filesystem::absolute(env).lexically_normal().string();
  return std::filesystem::path(VNSIM_DEFAULT_SHARED_DIR).lexically_normal().string();
}

std::string expand_shared(const std::string& text, const std::string& shared_root) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t at = text.find("${", pos);
    if (at == std::string::npos) break;
    if (text.compare(at, kSharedVariable.size(), kSharedVariable) != 0) {
      const std::size_t end = text.find('}', at);
      throw InputError("'" + text + "': unknown variable '" +
                       text.substr(at, end == std::string::npos ? std::string::npos : end - at + 1) +
                       "' (only ${VNSIM_SHARED} is expanded)");
    }
    out += text.substr(pos, at - pos) + shared_root;
    pos = at + kSharedVariable.size();
  }
  return out + text.substr(pos);
}

ExperimentConfig parse_experiment_config(const std::string& json_text, const std::string& source,
                                         const std::filesystem::path& base_dir,
                                         const std::string& shared_root) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows
    throw InputError(source + ": not valid JSON: " + e.what());
  }
  return Parser(source, base_dir, shared_root).parse(root);
}

ExperimentConfig load_experiment_config(const std::filesystem::path& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw InputError(file.string() + ": cannot open experiment config");
  std::stringstream s;
  s << f.rdbuf();
  return parse_experiment_config(s.str(), file.string(), file.parent_path(), default_shared_root());
}

}  // namespace vnsim::sweep
