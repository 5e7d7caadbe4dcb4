// Text and JSON renderings of TraceStats. Both are deterministic: maps are
// ordered, and numbers are printed with fixed formats.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "vnsim/traces/trace_stats.hpp"

namespace vnsim {
namespace {

std::string fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::string share(std::size_t part, std::size_t whole) {
  return whole == 0 ? "-" : fmt("%.2f %%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string line(const std::string& label, const std::string& value) {
  std::string out = "  " + label;
  if (out.size() < 24) out.append(24 - out.size(), ' ');
  return out + value + "\n";
}

std::string count_table(const std::vector<std::pair<std::string, std::size_t>>& rows, std::size_t whole) {
  std::string out;
  for (const auto& [name, n] : rows) out += line(name, std::to_string(n) + "  (" + share(n, whole) + ")");
  return out;
}

template <class Map>
std::vector<std::pair<std::string, std::size_t>> rows_of(const Map& m) {
  std::vector<std::pair<std::string, std::size_t>> rows;
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<typename Map::key_type, int>)
      rows.emplace_back(std::to_string(k), v);
    else
      rows.emplace_back(k, v);
  }
  return rows;
}

}  // namespace

std::string trace_stats_text(const TraceStats& s) {
  std::string out = "trace " + s.source + " (format " + s.format + ")\n";
  out += line("jobs", std::to_string(s.jobs));
  out += line("skipped rows", std::to_string(s.skipped_rows));
  out += line("time span", fmt("%.0f s", s.span_s) + fmt(" (%.2f days)", s.span_s / 86400));
  out += line("arrival rate", fmt("%.2f jobs/h", s.jobs_per_hour));
  out += "GPUs per job" + fmt(" (mean %.2f", s.mean_gpus) + ", max " + std::to_string(s.max_gpus) + "):\n";
  out += count_table(s.gpu_buckets, s.jobs);
  out += "GPUs per job, exact:\n" + count_table(rows_of(s.gpus_exact), s.jobs);
  out += "durations (" + std::to_string(s.duration.jobs) + " jobs with a recorded duration):\n";
  if (s.duration.jobs > 0) {
    out += line("p50", fmt("%.1f s", s.duration.p50_s));
    out += line("p90", fmt("%.1f s", s.duration.p90_s));
    out += line("p99", fmt("%.1f s", s.duration.p99_s));
    out += line("mean", fmt("%.1f s", s.duration.mean_s));
    out += line("max", fmt("%.1f s", s.duration.max_s));
  }
  out += "status:\n" + count_table(rows_of(s.status), s.jobs);
  out += "GPU types:\n" + count_table(rows_of(s.gpu_types), s.jobs);
  out += "VCs: " + std::to_string(s.vc_count) + " (top " + std::to_string(s.top_vcs.size()) + ")\n";
  out += count_table(s.top_vcs, s.jobs);
  out += "users: " + std::to_string(s.user_count) + "\n";
  // A months-long trace has hundreds of daily bins; the text view merges
  // them into at most kMaxTextBins lines (--json keeps every bin).
  constexpr std::size_t kMaxTextBins = 36;
  const std::size_t group = std::max<std::size_t>(1, (s.arrivals.size() + kMaxTextBins - 1) / kMaxTextBins);
  const std::string unit = s.bin_s >= 86400 ? "day" : "hour";
  out += "arrivals per " + (group == 1 ? unit : std::to_string(group) + " " + unit + "s") +
         " (bin start in s from the first job):\n";
  for (std::size_t b = 0; b < s.arrivals.size(); b += group) {
    std::size_t jobs = 0;
    for (std::size_t k = b; k < std::min(b + group, s.arrivals.size()); ++k) jobs += s.arrivals[k].jobs;
    out += line(fmt("%.0f", s.arrivals[b].start_s), std::to_string(jobs));
  }
  return out;
}

std::string trace_stats_json(const TraceStats& s) {
  nlohmann::ordered_json j;
  j["source"] = s.source;
  j["format"] = s.format;
  j["jobs"] = s.jobs;
  j["skipped_rows"] = s.skipped_rows;
  j["span_s"] = s.span_s;
  j["jobs_per_hour"] = s.jobs_per_hour;
  auto& g = j["gpus_per_job"];
  g["mean"] = s.mean_gpus;
  g["max"] = s.max_gpus;
  for (const auto& [name, n] : s.gpu_buckets) g["buckets"][name] = n;
  for (const auto& [gpus, n] : s.gpus_exact) g["exact"][std::to_string(gpus)] = n;
  auto& d = j["duration_s"];
  d["jobs"] = s.duration.jobs;
  d["p50"] = s.duration.p50_s;
  d["p90"] = s.duration.p90_s;
  d["p99"] = s.duration.p99_s;
  d["mean"] = s.duration.mean_s;
  d["max"] = s.duration.max_s;
  j["status"] = nlohmann::ordered_json::object();
  for (const auto& [k, n] : s.status) j["status"][k] = n;
  j["gpu_types"] = nlohmann::ordered_json::object();
  for (const auto& [k, n] : s.gpu_types) j["gpu_types"][k] = n;
  j["vc_count"] = s.vc_count;
  j["top_vcs"] = nlohmann::ordered_json::array();
  for (const auto& [k, n] : s.top_vcs) j["top_vcs"].push_back({{"vc", k}, {"jobs", n}});
  j["user_count"] = s.user_count;
  j["arrival_bin_s"] = s.bin_s;
  j["arrivals"] = nlohmann::ordered_json::array();
  for (const auto& b : s.arrivals) j["arrivals"].push_back({{"start_s", b.start_s}, {"jobs", b.jobs}});
  return j.dump(2) + "\n";
}

}  // namespace vnsim
