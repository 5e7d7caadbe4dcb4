// Statistics of a trace (docs/TRACES.md, "Tools"): every number comes from
// the JobSpecs, so they mean the same for every input format.
#include "vnsim/traces/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace vnsim {
namespace {

constexpr double kHourS = 3600, kDayS = 86400;
constexpr std::size_t kTopVcs = 10;

std::vector<std::pair<std::string, std::size_t>> gpu_buckets_of(const std::map<int, std::size_t>& exact) {
  std::vector<std::pair<std::string, std::size_t>> buckets = {
      {"1", 0}, {"2", 0}, {"4", 0}, {"8", 0}, {">8", 0}};
  for (const auto& [gpus, count] : exact) {
    if (gpus == 1)
      buckets[0].second += count;
    else if (gpus == 2)
      buckets[1].second += count;
    else if (gpus == 4)
      buckets[2].second += count;
    else if (gpus == 8)
      buckets[3].second += count;
    else if (gpus > 8)
      buckets[4].second += count;
  }
  // Sizes 3, 5-7 belong to no power-of-two bucket; give them one of their own.
  std::size_t other = 0;
  for (const auto& [gpus, count] : exact)
    if (gpus < 8 && gpus != 1 && gpus != 2 && gpus != 4) other += count;
  if (other > 0) buckets.emplace_back("other <8", other);
  return buckets;
}

DurationSummary summarize_durations(const std::vector<JobSpec>& jobs) {
  std::vector<double> d;
  for (const auto& j : jobs)
    if (j.trace_duration_s >= 0) d.push_back(j.trace_duration_s);
  DurationSummary s;
  s.jobs = d.size();
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  s.p50_s = percentile_of_sorted(d, 0.5);
  s.p90_s = percentile_of_sorted(d, 0.9);
  s.p99_s = percentile_of_sorted(d, 0.99);
  double sum = 0;
  for (double x : d) sum += x;
  s.mean_s = sum / static_cast<double>(d.size());
  s.max_s = d.back();
  return s;
}

std::vector<std::pair<std::string, std::size_t>> top_vcs_of(const std::map<std::string, std::size_t>& by_vc) {
  std::vector<std::pair<std::string, std::size_t>> v(by_vc.begin(), by_vc.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > kTopVcs) v.resize(kTopVcs);
  return v;
}

}  // namespace

double percentile_of_sorted(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

TraceStats compute_trace_stats(const std::vector<JobSpec>& jobs, std::size_t skipped_rows,
                               const std::string& source, const std::string& format) {
  TraceStats s;
  s.source = source;
  s.format = format;
  s.jobs = jobs.size();
  s.skipped_rows = skipped_rows;
  std::map<std::string, std::size_t> by_vc;
  std::set<std::string> users;
  double first = 0, last = 0, gpu_sum = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& j = jobs[i];
    first = i == 0 ? j.submit_s : std::min(first, j.submit_s);
    last = i == 0 ? j.submit_s : std::max(last, j.submit_s);
    ++s.gpus_exact[j.gpus];
    gpu_sum += j.gpus;
    s.max_gpus = std::max(s.max_gpus, j.gpus);
    ++s.status[to_string(j.status)];
    ++s.gpu_types[j.gpu_type.value_or("(any)")];
    if (!j.vc.empty()) ++by_vc[j.vc];
    if (!j.user.empty()) users.insert(j.user);
  }
  s.span_s = last - first;
  s.jobs_per_hour = s.span_s > 0 ? static_cast<double>(s.jobs) / (s.span_s / kHourS) : 0;
  s.gpu_buckets = gpu_buckets_of(s.gpus_exact);
  s.mean_gpus = jobs.empty() ? 0 : gpu_sum / static_cast<double>(jobs.size());
  s.duration = summarize_durations(jobs);
  s.vc_count = by_vc.size();
  s.top_vcs = top_vcs_of(by_vc);
  s.user_count = users.size();
  s.bin_s = s.span_s > 2 * kDayS ? kDayS : kHourS;
  if (!jobs.empty()) {
    const auto bins = static_cast<std::size_t>(std::floor(s.span_s / s.bin_s)) + 1;
    s.arrivals.resize(bins);
    for (std::size_t b = 0; b < bins; ++b) s.arrivals[b].start_s = static_cast<double>(b) * s.bin_s;
    for (const auto& j : jobs)
      ++s.arrivals[std::min(bins - 1, static_cast<std::size_t>(std::floor((j.submit_s - first) / s.bin_s)))]
            .jobs;
  }
  return s;
}

TraceStats compute_trace_stats(const TraceReadResult& read, const std::string& source) {
  return compute_trace_stats(read.jobs, read.skipped.size(), source, read.format);
}

}  // namespace vnsim
