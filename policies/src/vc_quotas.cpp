// VC quotas: the quota file, the rule that derives quotas from a trace, and
// the checks that every job's VC has one (docs/POLICIES.md).
#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "vnsim/core/error.hpp"
#include "vnsim/core/text_file.hpp"
#include "vnsim/policies/vc_quota_policy.hpp"

namespace vnsim {

std::string vc_name_of(const JobSpec& job) {
  return job.vc.empty() ? "-" : job.vc;
}

VcQuotas read_vc_quotas(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open the VC quota file");
  VcQuotas out;
  std::string line;
  long number = 0;
  bool header = false;
  while (std::getline(f, line)) {
    ++number;
    const std::string text = trim_blanks(line);
    if (text.empty() || text[0] == '#') continue;
    const auto comma = text.find(',');
    if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
      throw input_error_at(path, number, "expected two fields 'vc,gpus', got '" + text + "'");
    const std::string vc = trim_blanks(text.substr(0, comma));
    const std::string gpus = trim_blanks(text.substr(comma + 1));
    if (!header) {
      if (vc != "vc" || gpus != "gpus")
        throw input_error_at(path, number, "the first line must be the header 'vc,gpus', got '" + text + "'");
      header = true;
      continue;
    }
    if (vc.empty()) throw input_error_at(path, number, "empty VC name (write '-' for jobs without a VC)");
    int value = 0;
    auto [end, ec] = std::from_chars(gpus.data(), gpus.data() + gpus.size(), value);
    if (ec != std::errc() || end != gpus.data() + gpus.size() || gpus.empty() || value < 0)
      throw input_error_at(path, number, "gpus '" + gpus + "' is not a whole number >= 0");
    if (!out.gpus.emplace(vc, value).second)
      throw input_error_at(path, number, "VC '" + vc + "' is listed twice");
  }
  if (!header) throw InputError(path + ": empty VC quota file (expected the header 'vc,gpus')");
  return out;
}

VcQuotas derive_vc_quotas(const std::vector<JobSpec>& jobs, int total_gpus) {
  std::map<std::string, double> weight;
  std::map<std::string, int> largest;
  for (const JobSpec& job : jobs) {
    const std::string vc = vc_name_of(job);
    weight[vc] += job.gpus * (job.trace_duration_s > 0 ? job.trace_duration_s : 1.0);
    largest[vc] = std::max(largest[vc], job.gpus);
  }
  VcQuotas out;
  int left = total_gpus;
  double weight_sum = 0;
  for (const auto& [vc, w] : weight) {
    out.gpus[vc] = largest[vc];
    left -= largest[vc];
    weight_sum += w;
  }
  if (left < 0)
    throw InputError("derived VC quotas: the largest job of each VC needs " +
                     std::to_string(total_gpus - left) + " GPUs together, more than the cluster's " +
                     std::to_string(total_gpus) + " (give the quotas in a file)");
  if (weight.empty() || left == 0) return out;
  // Largest remainders (Hamilton): floors first, then one GPU each to the
  // largest fractional parts; ties go to the VC whose name sorts first.
  struct Share {
    std::string vc;
    double remainder;
  };
  std::vector<Share> shares;
  int given = 0;
  for (const auto& [vc, w] : weight) {
    const double exact = left * (w / weight_sum);
    const int floor = static_cast<int>(exact);
    out.gpus[vc] += floor;
    given += floor;
    shares.push_back({vc, exact - floor});
  }
  std::stable_sort(shares.begin(), shares.end(),
                   [](const Share& a, const Share& b) { return a.remainder > b.remainder; });
  for (std::size_t i = 0; given < left; ++i, ++given) out.gpus[shares[i % shares.size()].vc] += 1;
  return out;
}

void check_vc_quotas(const VcQuotas& quotas, const std::vector<JobSpec>& jobs, int total_gpus) {
  long long sum = 0;
  for (const auto& [vc, gpus] : quotas.gpus) sum += gpus;
  if (sum > total_gpus)
    throw InputError("VC quotas sum to " + std::to_string(sum) + " GPUs, more than the cluster's " +
                     std::to_string(total_gpus));
  std::set<std::string> missing;
  for (const JobSpec& job : jobs)
    if (!quotas.gpus.count(vc_name_of(job))) missing.insert(vc_name_of(job));
  if (!missing.empty()) {
    std::string list;
    for (const auto& vc : missing) list += (list.empty() ? "" : ", ") + vc;
    throw InputError("VC quotas: no quota for the trace's VC(s) " + list + " ('-' = jobs without a VC)");
  }
}

bool policy_supports_vc_quotas(const std::string& policy_name) {
  // Non-elastic policies that start and preempt whole jobs at their requested
  // size. The elastic ones (pollux, optimus, sia, vf-wfs) resize jobs across
  // the whole cluster, and gavel's LP plans time shares over every job: a
  // per-VC cap would silently break their allocations, so they are refused.
  static const std::set<std::string> supported = {"fifo",     "fifo-backfill", "sjf",    "srtf",
                                                  "tiresias", "themis",        "gandiva"};
  return supported.count(policy_name) != 0;
}

std::unique_ptr<Policy> make_vc_quota_policy(const std::string& policy_name,
                                             std::function<std::unique_ptr<Policy>()> factory,
                                             VcQuotas quotas, bool borrowing) {
  if (!policy_supports_vc_quotas(policy_name))
    throw InputError("policy '" + policy_name +
                     "' cannot run with VC quotas (--vc-quotas): it resizes or time-shares jobs across the "
                     "whole cluster; quota mode supports fifo, fifo-backfill, sjf, srtf, tiresias, themis, "
                     "gandiva");
  return std::make_unique<VcQuotaPolicy>(policy_name, std::move(factory), std::move(quotas), borrowing);
}

VcQuotas vc_quotas_from_source(const std::string& source, const std::vector<JobSpec>& jobs, int total_gpus) {
  VcQuotas quotas = source == "trace" ? derive_vc_quotas(jobs, total_gpus) : read_vc_quotas(source);
  check_vc_quotas(quotas, jobs, total_gpus);
  return quotas;
}

std::string vc_quotas_csv(const VcQuotas& quotas) {
  std::string out = "vc,gpus\n";
  for (const auto& [vc, gpus] : quotas.gpus) out += vc + ',' + std::to_string(gpus) + '\n';
  return out;
}

}  // namespace vnsim
