#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/fifo_policy.hpp"
#include "vnsim/policies/gandiva_policy.hpp"
#include "vnsim/policies/gavel_policy.hpp"
#include "vnsim/policies/optimus_policy.hpp"
#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/pollux_policy.hpp"
#include "vnsim/policies/sia_policy.hpp"
#include "vnsim/policies/sjf_policy.hpp"
#include "vnsim/policies/themis_policy.hpp"
#include "vnsim/policies/tiresias_policy.hpp"
#include "vnsim/policies/vf_wfs_policy.hpp"

namespace vnsim {

namespace {

// Reads one policy's parameters; every key must be consumed, so a typo is
// an error instead of a silently ignored setting.
class ParamReader {
 public:
  ParamReader(std::string policy, const PolicyParams& params) : policy_(std::move(policy)), left_(params) {}
  // Notes the default each read falls back to (policy_code_defaults).
  void record_defaults_in(std::map<std::string, PolicyCodeDefault>* out) { record_ = out; }

  std::string text(const std::string& key, std::string fallback) {
    note(key, false, fallback);
    return take(key, std::move(fallback));
  }
  double number(const std::string& key, double fallback) {
    note(key, true, PolicyCodeDefault::format({fallback}));
    const std::string v = take(key, "");
    return v.empty() ? fallback : parse_double(key, v);
  }
  // A whole number in [lo, hi]: casting an unchecked double to int is
  // undefined once it is out of range.
  int whole(const std::string& key, int fallback, int lo, int hi) {
    note(key, true, PolicyCodeDefault::format({static_cast<double>(fallback)}));
    const std::string v = take(key, "");
    if (v.empty()) return fallback;
    const double d = parse_double(key, v);
    if (!(d >= lo && d <= hi) || d != std::floor(d))
      fail(key, v, ("a whole number in " + std::to_string(lo) + ".." + std::to_string(hi)).c_str());
    return static_cast<int>(d);
  }
  std::uint64_t seed(const std::string& key) {
    note(key, true, PolicyCodeDefault::format({0.0}));
    const std::string v = take(key, "");
    std::uint64_t out = 0;
    if (v.empty()) return out;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size()) fail(key, v, "an unsigned integer");
    return out;
  }
  bool flag(const std::string& key, bool fallback) {
    note(key, true, PolicyCodeDefault::format({fallback ? 1.0 : 0.0}));
    const std::string v = take(key, "");
    if (v.empty()) return fallback;
    if (v != "0" && v != "1") fail(key, v, "0 or 1");
    return v == "1";
  }
  std::vector<double> numbers(const std::string& key, std::vector<double> fallback) {
    note(key, true, PolicyCodeDefault::format(fallback));
    const std::string v = take(key, "");
    if (v.empty()) return fallback;
    std::vector<double> out;
    std::size_t start = 0;
    while (start <= v.size()) {
      const std::size_t comma = std::min(v.find(',', start), v.size());
      out.push_back(parse_double(key, v.substr(start, comma - start)));
      start = comma + 1;
    }
    return out;
  }
  void finish() const {
    if (left_.empty()) return;
    throw InputError("policy '" + policy_ + "' has no parameter '" + left_.begin()->first +
                     "' (see `vnsim policies` for each policy's parameters)");
  }

 private:
  std::string take(const std::string& key, std::string fallback) {
    auto it = left_.find(key);
    if (it == left_.end()) return fallback;
    std::string v = it->second;
    left_.erase(it);
    return v;
  }
  void note(const std::string& key, bool numeric, std::string value) {
    if (record_ != nullptr) record_->emplace(key, PolicyCodeDefault{numeric, std::move(value)});
  }
  double parse_double(const std::string& key, const std::string& v) const {
    double out = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size() || v.empty()) fail(key, v, "a number");
    return out;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& v, const char* what) const {
    throw InputError("policy '" + policy_ + "' parameter '" + key + "': '" + v + "' is not " + what);
  }
  std::string policy_;
  PolicyParams left_;
  std::map<std::string, PolicyCodeDefault>* record_ = nullptr;
};

using PolicyFactory = std::function<std::unique_ptr<Policy>(ParamReader&)>;
struct Entry {
  std::string name;
  PolicyFactory factory;
  std::vector<PolicyParamInfo> params;
};

const PolicyParamInfo kPlacementParam{"placement", "consolidated",
                                      "consolidated | first-fit | topology-aware | random | most-free"};
const PolicyParamInfo kSeedParam{"seed", "0",
                                 "seed of the random placement (replay: --seed unless given here)"};

ShortestFirstParams shortest_first_params(ParamReader& r) {
  ShortestFirstParams p;
  p.placement = r.text("placement", p.placement);
  p.seed = r.seed("seed");
  return p;
}

// In the order `policy_names()` lists them (and --help prints them).
const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {
      {"fifo", [](ParamReader&) { return std::make_unique<FifoPolicy>(false); }, {}},
      {"fifo-backfill", [](ParamReader&) { return std::make_unique<FifoPolicy>(true); }, {}},
      {"sjf",
       [](ParamReader& r) { return std::make_unique<SjfPolicy>(shortest_first_params(r)); },
       {kPlacementParam, kSeedParam}},
      {"srtf",
       [](ParamReader& r) { return std::make_unique<SrtfPolicy>(shortest_first_params(r)); },
       {kPlacementParam, kSeedParam}},
      {"tiresias",
       [](ParamReader& r) {
         TiresiasParams p;
         p.thresholds_gpu_s = r.numbers("thresholds", p.thresholds_gpu_s);
         p.promote_knob = r.number("promote_knob", p.promote_knob);
         p.placement = r.text("placement", p.placement);
         p.seed = r.seed("seed");
         return std::make_unique<TiresiasPolicy>(p);
       },
       {{"thresholds", "3250,7200", "queue thresholds in GPU-s (K = count + 1 queues)"},
        {"promote_knob", "0", "starvation promotion knob; 0 = off"},
        kPlacementParam,
        kSeedParam}},
      {"pollux",
       [](ParamReader& r) {
         PolluxParams p;
         p.interval_s = r.number("interval_s", p.interval_s);
         p.restart_s = r.number("restart_s", p.restart_s);
         p.p = r.number("p", p.p);
         p.population = r.whole("population", p.population, 1, 1000000);
         p.generations = r.whole("generations", p.generations, 1, 1000000);
         p.batch_change_gain = r.number("batch_change_gain", p.batch_change_gain);
         p.max_row_evaluations = r.number("max_row_evaluations", p.max_row_evaluations);
         p.patience = r.whole("patience", p.patience, 0, 1000000);
         p.greedy_seed = r.flag("greedy_seed", p.greedy_seed);
         p.adaptive_batch = r.flag("adaptive_batch", p.adaptive_batch);
         p.growth_limit = r.number("growth_limit", p.growth_limit);
         p.max_skipped_rounds = r.whole("max_skipped_rounds", p.max_skipped_rounds, 0, 1000000);
         p.seed = r.seed("seed");
         return std::make_unique<PolluxPolicy>(p);
       },
       {{"interval_s", "60", "scheduling round in seconds"},
        {"restart_s", "30", "delta of the restart factor (s)"},
        {"p", "-1", "generalised-mean exponent of the speedups (fairness)"},
        {"population", "100", "genetic search population"},
        {"generations", "100", "genetic search generations (fewer when capped by max_row_evaluations)"},
        {"batch_change_gain", "0.05", "least goodput gain for an in-place batch change"},
        {"max_row_evaluations", "2e6", "cap on population x generations x jobs per round"},
        {"patience", "10",
         "stop a round's search after this many generations without improvement; 0 = never"},
        {"greedy_seed", "1",
         "1: seed each round's search with a greedy allocation; 0: Pollux's own seeds only"},
        {"adaptive_batch", "1", "1: goodput-optimal batch per allocation; 0: each job keeps its own batch"},
        {"growth_limit", "0",
         "F > 0: at most F x the most GPUs a job has run on (Pollux simulator: 2); 0 = no limit"},
        {"max_skipped_rounds", "10",
         "reuse the last search's allocation while nothing changed, for up to this many rounds; 0 = search "
         "every round"},
        {"seed", "0", "seed of the genetic search (replay: --seed unless given here)"}}},
      {"optimus",
       [](ParamReader& r) {
         OptimusParams p;
         p.interval_s = r.number("interval_s", p.interval_s);
         p.max_gpus_per_job = r.whole("max_gpus_per_job", p.max_gpus_per_job, 1, 1000000);
         return std::make_unique<OptimusPolicy>(p);
       },
       {{"interval_s", "60", "scheduling round in seconds"},
        {"max_gpus_per_job", "64", "most GPUs one job may get"}}},
      {"sia",
       [](ParamReader& r) {
         SiaParams p;
         p.interval_s = r.number("interval_s", p.interval_s);
         p.p = r.number("p", p.p);
         p.no_allocation_penalty = r.number("no_allocation_penalty", p.no_allocation_penalty);
         p.max_gpus_per_job = r.whole("max_gpus_per_job", p.max_gpus_per_job, 1, 1000000);
         p.batch_change_gain = r.number("batch_change_gain", p.batch_change_gain);
         p.relative_gap = r.number("relative_gap", p.relative_gap);
         p.max_bb_nodes = r.whole("max_bb_nodes", p.max_bb_nodes, 0, 100000000);
         return std::make_unique<SiaPolicy>(p);
       },
       {{"interval_s", "60", "scheduling round in seconds"},
        {"p", "-0.5", "exponent of the normalised goodputs in the ILP objective (non-zero)"},
        {"no_allocation_penalty", "1.1", "ILP penalty for a job left without GPUs (p < 0)"},
        {"max_gpus_per_job", "64", "most GPUs one job may get"},
        {"batch_change_gain", "0.05", "least goodput gain for an in-place batch change"},
        {"relative_gap", "1e-4",
         "ILP stops within this fraction of the optimum (Sia artifact: 1e-4); 0 = optimal"},
        {"max_bb_nodes", "100", "most CBC branch-and-bound nodes per round; 0 = no limit"}}},
      {"gavel",
       [](ParamReader& r) {
         GavelParams p;
         p.objective = gavel_objective_from_string(r.text("objective", "max_min_fairness"));
         p.round_s = r.number("round_s", p.round_s);
         p.reset_s = r.number("reset_s", p.reset_s);
         p.placement = r.text("placement", p.placement);
         p.seed = r.seed("seed");
         const std::string sharing = r.text("space_sharing", "off");
         if (sharing != "off" && sharing != "on")
           throw InputError("policy 'gavel' parameter 'space_sharing': '" + sharing + "' is not on or off");
         p.space_sharing = sharing == "on";
         p.partners_per_class = r.whole("partners_per_class", p.partners_per_class, 1, 1000);
         return std::make_unique<GavelPolicy>(p);
       },
       {{"objective", "max_min_fairness",
         "max_min_fairness | finish_time_fairness | makespan (LP objective)"},
        {"round_s", "360", "round length in seconds"},
        {"reset_s", "1920", "least time between resets of the per-type time counters"},
        kPlacementParam,
        kSeedParam,
        {"space_sharing", "off",
         "on: pairs of same-size jobs may share GPUs, half each, at the interference table's rates"},
        {"partners_per_class", "4",
         "space sharing: best partner classes kept per class of identical jobs (caps the LP's pair "
         "columns)"}}},
      {"themis",
       [](ParamReader& r) {
         ThemisParams p;
         p.fairness_knob = r.number("fairness_knob", p.fairness_knob);
         p.lease_s = r.number("lease_s", p.lease_s);
         p.placement = r.text("placement", p.placement);
         p.seed = r.seed("seed");
         return std::make_unique<ThemisPolicy>(p);
       },
       {{"fairness_knob", "0.8", "f in [0,1): GPUs go first to the 1-f fraction of jobs with the worst rho"},
        {"lease_s", "600", "lease length in seconds"},
        kPlacementParam,
        kSeedParam}},
      {"gandiva",
       [](ParamReader& r) {
         GandivaParams p;
         p.slice_s = r.number("slice_s", p.slice_s);
         p.placement = r.text("placement", p.placement);
         p.seed = r.seed("seed");
         const std::string packing = r.text("packing", "off");
         if (packing != "off" && packing != "on")
           throw InputError("policy 'gandiva' parameter 'packing': '" + packing + "' is not on or off");
         p.packing = packing == "on";
         return std::make_unique<GandivaPolicy>(p);
       },
       {{"slice_s", "60", "time-slice length in seconds when oversubscribed"},
        kPlacementParam,
        kSeedParam,
        {"packing", "off",
         "on: GPU sharing (jobs' gpu_milli shares; two jobs per GPU when oversubscribed, unpacked "
         "when their combined throughput < 1)"}}},
      {"vf-wfs",
       [](ParamReader& r) {
         VfWfsParams p;
         p.priorities = r.numbers("priorities", p.priorities);
         const std::string mode = r.text("mode", "in-place");
         if (mode != "in-place" && mode != "checkpoint-restart")
           throw InputError("policy 'vf-wfs' parameter 'mode': '" + mode +
                            "' is not in-place or checkpoint-restart");
         p.mode = mode == "in-place" ? ResizeMode::InPlace : ResizeMode::CheckpointRestart;
         p.seed = r.seed("seed");
         for (double w : p.priorities)
           if (!(w > 0)) throw InputError("policy 'vf-wfs' parameter 'priorities': weights must be > 0");
         return std::make_unique<VfWfsPolicy>(p);
       },
       {{"priorities", "1", "priority weights; job j gets priorities[hash(id, seed) mod n]"},
        {"mode", "in-place", "in-place | checkpoint-restart (how jobs are resized)"},
        {"seed", "0", "seed of the priority draw (replay: --seed unless given here)"}}},
  };
  return entries;
}

const Entry& find_entry(const std::string& name) {
  for (const Entry& e : registry())
    if (e.name == name) return e;
  std::string valid;
  for (const auto& entry : registry()) valid += (valid.empty() ? "" : ", ") + entry.name;
  throw InputError("unknown policy '" + name + "'; valid policies: " + valid);
}

}  // namespace

std::unique_ptr<Policy> make_policy(const std::string& name) {
  return make_policy(name, PolicyParams{});
}

std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyParams& params) {
  const Entry& entry = find_entry(name);
  ParamReader reader(name, params);
  std::unique_ptr<Policy> policy = entry.factory(reader);
  reader.finish();
  return policy;
}

std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyParams& params,
                                    std::uint64_t run_seed) {
  const Entry& entry = find_entry(name);
  const bool has_seed = std::any_of(entry.params.begin(), entry.params.end(),
                                    [](const PolicyParamInfo& p) { return p.key == "seed"; });
  if (!has_seed || params.count("seed") != 0) return make_policy(name, params);
  PolicyParams seeded = params;
  seeded.emplace("seed", std::to_string(run_seed));
  return make_policy(name, seeded);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.name);
  return names;
}

std::vector<PolicyParamInfo> policy_parameters(const std::string& name) {
  return find_entry(name).params;
}

std::string PolicyCodeDefault::format(const std::vector<double>& values) {
  std::string out;
  char buf[32];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out += (out.empty() ? "" : ",") + std::string(buf);
  }
  return out;
}

std::map<std::string, PolicyCodeDefault> policy_code_defaults(const std::string& name) {
  std::map<std::string, PolicyCodeDefault> out;
  ParamReader reader(name, PolicyParams{});
  reader.record_defaults_in(&out);
  find_entry(name).factory(reader);
  return out;
}

}  // namespace vnsim
