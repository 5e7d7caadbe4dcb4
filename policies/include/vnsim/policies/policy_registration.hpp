#pragma once
// How a policy registers itself, in its own .cpp file, with one table of its
// parameters. Each row names a key, the Params field it sets, the values it
// accepts and what it means; the default is the field's value in a
// default-constructed Params, so it is written once, in the struct. Every
// reader of the parameters reads this table: make_policy (parsing, unknown
// keys are errors), `vnsim policies` and its --markdown section of
// docs/POLICIES.md, the sweep config's key check.
//
//   namespace {
//   ParamTable<LifoParams> lifo_params() {
//     return ParamTable<LifoParams>().text("placement", &LifoParams::placement, placement_names(), "...");
//   }
//   const PolicyRegistration kLifo("lifo", 130, lifo_params(),
//                                  [](const LifoParams& p) { return std::make_unique<LifoPolicy>(p); });
//   }  // namespace
//
// The library is linked whole (policies/CMakeLists.txt), so a registration
// that nothing else references is still linked in.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

// The numbers a parameter accepts: [lo, hi] with either end open.
struct NumberRange {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;

  static NumberRange any() { return {}; }
  static NumberRange positive() { return {0, std::numeric_limits<double>::infinity(), true, false}; }
  static NumberRange non_negative() { return {0, std::numeric_limits<double>::infinity(), false, false}; }
  bool contains(double v) const;
  std::string text() const;  // "number", "> 0", ">= 0", "[0, 1)"
};

// Parsing and printing of parameter values. Errors are InputErrors that name
// the policy, the key and the value.
namespace param_values {
double number(const std::string& policy, const std::string& key, const std::string& v,
              const NumberRange& range);
std::vector<double> numbers(const std::string& policy, const std::string& key, const std::string& v,
                            const NumberRange& range);
int whole(const std::string& policy, const std::string& key, const std::string& v, int lo, int hi);
std::uint64_t unsigned_integer(const std::string& policy, const std::string& key, const std::string& v);
// The index of `v` in `names`.
std::size_t choice(const std::string& policy, const std::string& key, const std::string& v,
                   const std::vector<std::string>& names);
std::string format(double v);                      // shortest text that reads back the same double
std::string format(const std::vector<double>& v);  // comma-separated
std::string join(const std::vector<std::string>& names, const char* separator);
}  // namespace param_values

// A policy without parameters.
struct NoParams {};

template <class Params>
class ParamTable {
 public:
  struct Row {
    PolicyParamInfo info;
    std::function<void(Params&, const std::string& policy, const std::string& value)> set;
  };

  ParamTable& number(std::string key, double Params::*field, std::string meaning,
                     NumberRange range = NumberRange::any()) {
    return add(std::move(key), param_values::format(defaults_.*field), range.text(), std::move(meaning),
               [field, range, k = key](Params& p, const std::string& policy, const std::string& v) {
                 p.*field = param_values::number(policy, k, v, range);
               });
  }
  // Comma-separated numbers, each in `range`.
  ParamTable& numbers(std::string key, std::vector<double> Params::*field, std::string meaning,
                      NumberRange range = NumberRange::any()) {
    return add(
        std::move(key), param_values::format(defaults_.*field),
        std::string("numbers") +
            (range.lo == NumberRange::any().lo && range.hi == NumberRange::any().hi ? ""
                                                                                    : " " + range.text()) +
            ", comma-separated",
        std::move(meaning),
        [field, range, k = key](Params& p, const std::string& policy, const std::string& v) {
          p.*field = param_values::numbers(policy, k, v, range);
        });
  }
  // A whole number in [lo, hi]: casting an unchecked double to int is
  // undefined once it is out of range.
  ParamTable& whole(std::string key, int Params::*field, int lo, int hi, std::string meaning) {
    return add(std::move(key), std::to_string(defaults_.*field),
               "whole " + std::to_string(lo) + ".." + std::to_string(hi), std::move(meaning),
               [field, lo, hi, k = key](Params& p, const std::string& policy, const std::string& v) {
                 p.*field = param_values::whole(policy, k, v, lo, hi);
               });
  }
  ParamTable& flag(std::string key, bool Params::*field, std::string meaning) {
    return choice(std::move(key), field, {{"0", false}, {"1", true}}, std::move(meaning));
  }
  // The seed of a policy's random choices; a replay's --seed fills it unless
  // given (make_policy with a run seed).
  ParamTable& seed(std::string key, std::uint64_t Params::*field, std::string meaning) {
    return add(std::move(key), std::to_string(defaults_.*field), "unsigned integer", std::move(meaning),
               [field, k = key](Params& p, const std::string& policy, const std::string& v) {
                 p.*field = param_values::unsigned_integer(policy, k, v);
               });
  }
  // One of a fixed set of words, each standing for a value of the field.
  template <class T>
  ParamTable& choice(std::string key, T Params::*field, std::vector<std::pair<std::string, T>> words,
                     std::string meaning) {
    std::vector<std::string> names;
    std::string shown;
    for (const auto& [word, value] : words) {
      names.push_back(word);
      if (value == defaults_.*field) shown = word;
    }
    return add(std::move(key), shown, param_values::join(names, " | "), std::move(meaning),
               [field, names, words, k = key](Params& p, const std::string& policy, const std::string& v) {
                 p.*field = words[param_values::choice(policy, k, v, names)].second;
               });
  }
  // A word from `names` kept as text (the policy resolves it, e.g. a placement).
  ParamTable& text(std::string key, std::string Params::*field, std::vector<std::string> names,
                   std::string meaning) {
    std::vector<std::pair<std::string, std::string>> words;
    for (const std::string& n : names) words.emplace_back(n, n);
    return choice(std::move(key), field, std::move(words), std::move(meaning));
  }

  // The placement strategy (placement.hpp) and the seed of its random draw.
  ParamTable& placement(std::string Params::*placement, std::uint64_t Params::*seed) {
    text("placement", placement, placement_names(),
         "how a job's GPUs are chosen (docs/POLICIES.md, \"Placement strategies\")");
    return this->seed("seed", seed, "seed of the random placement (replay: --seed unless given here)");
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  ParamTable& add(std::string key, std::string shown, std::string range, std::string meaning,
                  std::function<void(Params&, const std::string&, const std::string&)> set) {
    rows_.push_back(
        {{std::move(key), std::move(shown), std::move(range), std::move(meaning)}, std::move(set)});
    return *this;
  }

  Params defaults_{};
  std::vector<Row> rows_;
};

// A registered policy with its parameters type-erased: `build` parses the
// given key=value texts (every key must be in the table) and makes the policy.
struct RegisteredPolicy {
  std::string name;
  int list_position = 0;
  std::vector<PolicyParamInfo> params;
  std::function<std::unique_ptr<Policy>(const PolicyParams&)> build;
};
void register_policy(RegisteredPolicy policy);
// Throws InputError naming the unknown key (every given key must be read).
[[noreturn]] void throw_unknown_param(const std::string& policy, const std::string& key);

// Registers a policy when its file's static objects are initialised.
// `list_position` orders `policy_names()` (and `vnsim policies`); lower first.
class PolicyRegistration {
 public:
  template <class Params, class Make>
  PolicyRegistration(std::string name, int list_position, ParamTable<Params> table, Make make) {
    RegisteredPolicy entry;
    entry.name = name;
    entry.list_position = list_position;
    for (const auto& row : table.rows()) entry.params.push_back(row.info);
    entry.build = [name, table = std::move(table), make = std::move(make)](const PolicyParams& given) {
      Params params{};
      std::size_t used = 0;
      for (const auto& row : table.rows()) {
        const auto it = given.find(row.info.key);
        if (it == given.end()) continue;
        row.set(params, name, it->second);
        ++used;
      }
      if (used != given.size())
        for (const auto& [key, value] : given) {
          bool known = false;
          for (const auto& row : table.rows()) known = known || row.info.key == key;
          if (!known) throw_unknown_param(name, key);
        }
      return std::unique_ptr<Policy>(make(params));
    };
    register_policy(std::move(entry));
  }
};

}  // namespace vnsim
