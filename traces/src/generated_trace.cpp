#include "vnsim/traces/generated_trace.hpp"

#include <charconv>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/synthetic_philly.hpp"
#include "vnsim/traces/synthetic_traces.hpp"

namespace vnsim {
namespace {

constexpr long long kDefaultJobs = 5000;

// N of "...:N", worded as the command line words its other whole numbers.
long long job_count(const std::string& form, const std::string& text) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw InputError("option --trace " + form + ": '" + text + "' is not an integer");
  if (v < 1) throw InputError("option --trace " + form + ": must be >= 1");
  return v;
}

}  // namespace

bool is_generated_trace(const std::string& name) {
  return name.rfind("synthetic", 0) == 0;
}

GeneratedTrace generate_trace(const std::string& name, std::uint64_t seed) {
  const std::string synthetic = "synthetic";
  GeneratedTrace out;
  if (name.rfind("synthetic-", 0) != 0) {
    if (name.rfind(synthetic, 0) != 0 || (name.size() > synthetic.size() && name[synthetic.size()] != ':'))
      throw InputError("--trace: write 'synthetic' or 'synthetic:N', got '" + name + "'");
    const long long n = name.size() > synthetic.size()
                            ? job_count("synthetic:N", name.substr(synthetic.size() + 1))
                            : kDefaultJobs;
    out.jobs =
        generate_philly_like(static_cast<std::size_t>(n), synthetic_profile("philly").jobs_per_hour, seed);
    out.description = "synthetic philly-like, " + std::to_string(n) + " jobs, seed " + std::to_string(seed);
    return out;
  }
  const std::string rest = name.substr(std::string("synthetic-").size());
  const auto colon = rest.find(':');
  const std::string kind = rest.substr(0, colon);
  const long long n =
      colon == std::string::npos ? kDefaultJobs : job_count("synthetic-<kind>:N", rest.substr(colon + 1));
  const SyntheticProfile& profile = synthetic_profile(kind);
  out.jobs = draw_synthetic_jobs(profile, static_cast<std::size_t>(n),
                                 ArrivalProcess{.jobs_per_hour = profile.jobs_per_hour}, seed);
  out.description =
      "synthetic " + kind + ", " + std::to_string(n) + " jobs, Poisson, seed " + std::to_string(seed);
  return out;
}

}  // namespace vnsim
