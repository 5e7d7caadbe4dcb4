// The registry the policies' own files fill (policy_registration.hpp), and
// the parsing of parameter values their tables share.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {

namespace {

// Filled during static initialisation by the PolicyRegistration objects of
// the policy files; a function-local static so it exists before the first.
std::vector<RegisteredPolicy>& registered() {
  static std::vector<RegisteredPolicy> policies;
  return policies;
}

// In list order; registration order across files is the linker's, so the
// list is sorted by position (then name) on each read.
std::vector<const RegisteredPolicy*> in_list_order() {
  std::vector<const RegisteredPolicy*> out;
  for (const RegisteredPolicy& p : registered()) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const RegisteredPolicy* a, const RegisteredPolicy* b) {
    return a->list_position != b->list_position ? a->list_position < b->list_position : a->name < b->name;
  });
  return out;
}

const RegisteredPolicy& find_policy(const std::string& name) {
  for (const RegisteredPolicy& p : registered())
    if (p.name == name) return p;
  std::string valid;
  for (const RegisteredPolicy* p : in_list_order()) valid += (valid.empty() ? "" : ", ") + p->name;
  throw InputError("unknown policy '" + name + "'; valid policies: " + valid);
}

[[noreturn]] void fail(const std::string& policy, const std::string& key, const std::string& v,
                       const std::string& what) {
  throw InputError("policy '" + policy + "' parameter '" + key + "': '" + v + "' is not " + what);
}

double parse_double(const std::string& policy, const std::string& key, const std::string& v) {
  double out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) fail(policy, key, v, "a number");
  return out;
}

}  // namespace

bool NumberRange::contains(double v) const {
  if (lo == -std::numeric_limits<double>::infinity() && hi == std::numeric_limits<double>::infinity())
    return true;  // any number, as the policy's own checks see it
  const bool above = lo_open ? v > lo : v >= lo;
  const bool below = hi_open ? v < hi : v <= hi;
  return above && below;
}

std::string NumberRange::text() const {
  const bool has_lo = lo != -std::numeric_limits<double>::infinity();
  const bool has_hi = hi != std::numeric_limits<double>::infinity();
  if (!has_lo && !has_hi) return "number";
  if (has_lo && !has_hi) return (lo_open ? "> " : ">= ") + param_values::format(lo);
  if (!has_lo) return (hi_open ? "< " : "<= ") + param_values::format(hi);
  return (lo_open ? "(" : "[") + param_values::format(lo) + ", " + param_values::format(hi) +
         (hi_open ? ")" : "]");
}

namespace param_values {

double number(const std::string& policy, const std::string& key, const std::string& v,
              const NumberRange& range) {
  const double d = parse_double(policy, key, v);
  if (!range.contains(d)) fail(policy, key, v, "a number " + range.text());
  return d;
}

std::vector<double> numbers(const std::string& policy, const std::string& key, const std::string& v,
                            const NumberRange& range) {
  std::vector<double> out;
  std::size_t start = 0;
  while (start <= v.size()) {
    const std::size_t comma = std::min(v.find(',', start), v.size());
    const std::string item = v.substr(start, comma - start);
    double d = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (ec != std::errc() || end != item.data() + item.size() || item.empty())
      fail(policy, key, v, "a comma-separated list of numbers");
    if (!range.contains(d)) fail(policy, key, v, "a list of numbers " + range.text());
    out.push_back(d);
    start = comma + 1;
  }
  return out;
}

int whole(const std::string& policy, const std::string& key, const std::string& v, int lo, int hi) {
  const double d = parse_double(policy, key, v);
  if (!(d >= lo && d <= hi) || d != std::floor(d))
    fail(policy, key, v, "a whole number in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(d);
}

std::uint64_t unsigned_integer(const std::string& policy, const std::string& key, const std::string& v) {
  std::uint64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty())
    fail(policy, key, v, "an unsigned integer");
  return out;
}

std::size_t choice(const std::string& policy, const std::string& key, const std::string& v,
                   const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == v) return i;
  fail(policy, key, v, "one of " + join(names, ", "));
}

std::string format(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) throw std::logic_error("param_values::format: buffer too small");
  // Exponents as people write them: 2e6 and 1e-4, not 2e+06 and 1e-04.
  std::string out(buf, end);
  const std::size_t e = out.find('e');
  if (e == std::string::npos) return out;
  std::string exponent = out.substr(e + 1);
  const bool negative = exponent[0] == '-';
  if (exponent[0] == '+' || negative) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return out.substr(0, e + 1) + (negative ? "-" : "") + exponent;
}

std::string format(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ",") + format(x);
  return out;
}

std::string join(const std::vector<std::string>& names, const char* separator) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : separator) + n;
  return out;
}

}  // namespace param_values

void register_policy(RegisteredPolicy policy) {
  for (const RegisteredPolicy& p : registered())
    if (p.name == policy.name) throw std::logic_error("policy '" + policy.name + "' is registered twice");
  registered().push_back(std::move(policy));
}

void throw_unknown_param(const std::string& policy, const std::string& key) {
  throw InputError("policy '" + policy + "' has no parameter '" + key +
                   "' (see `vnsim policies` for each policy's parameters)");
}

std::unique_ptr<Policy> make_policy(const std::string& name) {
  return make_policy(name, PolicyParams{});
}

std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyParams& params) {
  return find_policy(name).build(params);
}

std::unique_ptr<Policy> make_policy(const std::string& name, const PolicyParams& params,
                                    std::uint64_t run_seed) {
  const RegisteredPolicy& entry = find_policy(name);
  const bool has_seed = std::any_of(entry.params.begin(), entry.params.end(),
                                    [](const PolicyParamInfo& p) { return p.key == "seed"; });
  if (!has_seed || params.count("seed") != 0) return entry.build(params);
  PolicyParams seeded = params;
  seeded.emplace("seed", std::to_string(run_seed));
  return entry.build(seeded);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const RegisteredPolicy* p : in_list_order()) names.push_back(p->name);
  return names;
}

std::vector<PolicyParamInfo> policy_parameters(const std::string& name) {
  return find_policy(name).params;
}

}  // namespace vnsim
