#include <charconv>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/fifo_policy.hpp"
#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/sjf_policy.hpp"
#include "vnsim/policies/tiresias_policy.hpp"

namespace vnsim {

namespace {

// Reads one policy's parameters; every key must be consumed, so a typo is
// an error instead of a silently ignored setting.
class ParamReader {
 public:
  ParamReader(std::string policy, const PolicyParams& params) : policy_(std::move(policy)), left_(params) {}

  std::string text(const std::string& key, std::string fallback) {
    auto it = left_.find(key);
    if (it == left_.end()) return fallback;
    std::string v = it->second;
    left_.erase(it);
    return v;
  }
  double number(const std::string& key, double fallback) {
    const std::string v = text(key, "");
    return v.empty() ? fallback : parse_double(key, v);
  }
  std::uint64_t seed(const std::string& key) {
    const std::string v = text(key, "");
    std::uint64_t out = 0;
    if (v.empty()) return out;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size()) fail(key, v, "an unsigned integer");
    return out;
  }
  std::vector<double> numbers(const std::string& key, std::vector<double> fallback) {
    const std::string v = text(key, "");
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
};

using PolicyFactory = std::function<std::unique_ptr<Policy>(ParamReader&)>;
struct Entry {
  std::string name;
  PolicyFactory factory;
  std::vector<PolicyParamInfo> params;
};

const PolicyParamInfo kPlacementParam{"placement", "consolidated",
                                      "consolidated | first-fit | topology-aware | random"};
const PolicyParamInfo kSeedParam{"seed", "0", "seed of the random placement"};

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

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.name);
  return names;
}

std::vector<PolicyParamInfo> policy_parameters(const std::string& name) {
  return find_entry(name).params;
}

}  // namespace vnsim
