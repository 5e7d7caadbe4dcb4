// Writers for jobs.csv, summary.json and run.json (docs/OUTPUTS.md). Every
// number is printed with a fixed rule so that the same records always give
// the same bytes.
#include "vnsim/core/job_record.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "vnsim/core/error.hpp"

namespace vnsim {

const char* to_string(FinalState s) {
  switch (s) {
    case FinalState::Completed:
      return "COMPLETED";
    case FinalState::Rejected:
      return "REJECTED";
  }
  return "UNKNOWN";
}

namespace {

using ordered_json = nlohmann::ordered_json;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path + ": cannot open for writing: " + std::strerror(errno));
  out << text;
  out.flush();
  if (!out) throw InputError(path + ": write failed: " + std::strerror(errno));
}

// A NaN or infinity here is a simulator bug; printing it would hide it in a
// file that looks valid.
void require_finite(double v, const std::string& what) {
  if (!std::isfinite(v)) throw std::logic_error("output writer: " + what + " is not finite");
}

}  // namespace

// Seconds with microsecond resolution, always the same digits.
std::string fixed6(double v, const std::string& what) {
  require_finite(v, what);
  if (std::fabs(v) < 5e-7) v = 0;  // never print "-0.000000"
  // std::to_chars in fixed format with a precision gives what printf's
  // "%.6f" gives in the C locale (C++17 [charconv.to.chars]), without its
  // format parsing: allocations.csv has millions of rows.
  std::array<char, 64> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, 6);
  if (ec != std::errc()) throw std::logic_error("cannot format " + what);
  return std::string(buf.data(), end);
}

// RFC 4180: quote when the field holds a comma, quote or line break; double
// embedded quotes. `always` quotes even plain text.
std::string csv_field(const std::string& s, bool always) {
  if (!always && s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Batsim's interval-set notation: sorted ids, runs collapsed to "a-b",
// separated by spaces, e.g. "0-3 7".
std::string interval_set(std::vector<GpuId> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

namespace {

std::string jobs_csv_row(const JobRecord& j) {
  const std::string who = "job '" + j.id + "' ";
  // Checked before the ">= 0" tests below, which a NaN would quietly fail.
  require_finite(j.start_s, who + "start_s");
  require_finite(j.finish_s, who + "finish_s");
  const bool started = j.start_s >= 0;
  const bool finished = j.finish_s >= 0;
  const double execution = finished && started ? j.finish_s - j.start_s : -1;
  std::string row;
  const auto cell = [&row](const std::string& s) {
    if (!row.empty()) row += ',';
    row += s;
  };
  cell(csv_field(j.id));
  cell(fixed6(j.submit_s, who + "submission_time"));
  cell(std::to_string(j.requested_gpus));
  cell(started ? fixed6(j.start_s, who + "starting_time") : "");
  cell(finished ? fixed6(j.finish_s, who + "finish_time") : "");
  cell(started ? fixed6(j.wait_s(), who + "waiting_time") : "");
  cell(execution >= 0 ? fixed6(execution, who + "execution_time") : "");
  cell(finished ? fixed6(j.jct_s(), who + "turnaround_time") : "");
  cell(execution > 0 ? fixed6(j.jct_s() / execution, who + "stretch") : "");
  cell(to_string(j.state));
  cell(csv_field(interval_set(j.gpus)));
  cell(csv_field(j.reason, /*always=*/true));
  cell(std::to_string(j.restarts));
  cell(csv_field(j.model));
  cell(std::to_string(j.iterations));
  cell(fixed6(j.gpu_seconds, who + "gpu_seconds"));
  cell(fixed6(j.lost_work_s, who + "lost_work_s"));
  cell(fixed6(j.energy_j, who + "energy_j"));
  cell(fixed6(j.cost_usd, who + "cost_usd"));
  cell(csv_field(j.vc));
  cell(std::to_string(j.virtual_nodes));
  return row;
}

// JSON numbers rounded to 1e-6 so float noise below a microsecond (or a
// millionth of utilisation) cannot change the file.
ordered_json round6(double v, const std::string& what) {
  require_finite(v, what);
  const double r = std::round(v * 1e6) / 1e6;
  return r == 0 ? 0.0 : r;
}

// Linear interpolation between closest ranks (NumPy's default "linear"
// method): position q*(n-1) in the sorted values.
double percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

// Mean, median, p95, p99 (and max when asked) of `values`; nulls when empty.
ordered_json distribution(std::vector<double> values, bool with_max, const std::string& what) {
  ordered_json out;
  std::sort(values.begin(), values.end());
  const bool empty = values.empty();
  double sum = 0;
  for (double v : values) sum += v;
  out["mean"] = empty ? ordered_json() : round6(sum / static_cast<double>(values.size()), what + ".mean");
  out["median"] = empty ? ordered_json() : round6(percentile(values, 0.50), what + ".median");
  out["p95"] = empty ? ordered_json() : round6(percentile(values, 0.95), what + ".p95");
  out["p99"] = empty ? ordered_json() : round6(percentile(values, 0.99), what + ".p99");
  if (with_max) out["max"] = empty ? ordered_json() : round6(values.back(), what + ".max");
  return out;
}

// "cost", "energy" and "revocations" of summary.json (docs/OUTPUTS.md).
void write_usage(ordered_json& s, const ResourceUsage& u) {
  ordered_json cost, energy;
  double total_usd = 0, busy_j = 0, idle_j = 0;
  for (const GpuTypeUsage& t : u.per_type) {
    const std::string w = "usage of " + t.type + " ";
    cost[t.type] = {{"gpus", t.gpus},
                    {"on_demand_gpu_hours", round6(t.on_demand_busy_gpu_s / 3600, w + "on_demand_gpu_hours")},
                    {"spot_gpu_hours", round6(t.spot_busy_gpu_s / 3600, w + "spot_gpu_hours")},
                    {"usd", round6(t.cost_usd, w + "usd")}};
    energy[t.type] = {{"busy_j", round6(t.busy_energy_j, w + "busy_j")},
                      {"idle_j", round6(t.idle_energy_j, w + "idle_j")},
                      {"idle_gpu_hours", round6(t.idle_gpu_s / 3600, w + "idle_gpu_hours")},
                      {"down_gpu_hours", round6(t.down_gpu_s / 3600, w + "down_gpu_hours")}};
    total_usd += t.cost_usd;
    busy_j += t.busy_energy_j;
    idle_j += t.idle_energy_j;
  }
  s["cost_usd"] = {{"total", round6(total_usd, "cost_usd.total")}, {"per_gpu_type", cost}};
  s["energy_j"] = {{"total", round6(busy_j + idle_j, "energy_j.total")},
                   {"busy", round6(busy_j, "energy_j.busy")},
                   {"idle", round6(idle_j, "energy_j.idle")},
                   {"per_gpu_type", energy}};
  s["revocations"] = {{"node_events", u.node_events},
                      {"jobs_revoked", u.jobs_revoked},
                      {"lost_work_s", round6(u.lost_work_s, "revocations.lost_work_s")}};
}

std::string dump(const ordered_json& j) {
  return j.dump(2) + "\n";
}

}  // namespace

void write_jobs_csv(const std::string& path, const std::vector<JobRecord>& jobs) {
  std::string text =
      "job_id,submission_time,requested_number_of_resources,starting_time,finish_time,waiting_time,"
      "execution_time,turnaround_time,stretch,final_state,allocated_resources,reason,restarts,model,"
      "iterations,gpu_seconds,lost_work_s,energy_j,cost_usd,vc,virtual_nodes\n";
  for (const auto& j : jobs) text += jobs_csv_row(j) + "\n";
  write_file(path, text);
}

void write_summary_json(const std::string& path, const std::vector<JobRecord>& jobs, const RunInfo& info) {
  std::vector<double> jct, wait;
  double first_submit = 0, last_finish = 0, gpu_seconds = 0;
  bool any_finished = false;
  std::size_t completed = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobRecord& j = jobs[i];
    // Sorting NaNs is undefined behaviour, so reject them before any sort.
    require_finite(j.submit_s, "job '" + j.id + "' submit_s");
    require_finite(j.start_s, "job '" + j.id + "' start_s");
    require_finite(j.finish_s, "job '" + j.id + "' finish_s");
    first_submit = i == 0 ? j.submit_s : std::min(first_submit, j.submit_s);
    gpu_seconds += j.gpu_seconds;
    if (j.state != FinalState::Completed) continue;
    ++completed;
    jct.push_back(j.jct_s());
    wait.push_back(j.wait_s());
    last_finish = any_finished ? std::max(last_finish, j.finish_s) : j.finish_s;
    any_finished = true;
  }
  const double makespan = any_finished ? last_finish - first_submit : 0;
  const double capacity = static_cast<double>(info.total_gpus) * makespan;

  ordered_json s;
  s["vnsim_version"] = info.vnsim_version;
  s["simgrid_version"] = info.simgrid_version;
  s["run"] = {{"policy", info.policy},
              {"cluster", info.cluster},
              {"trace", info.trace},
              {"seed", info.seed},
              {"total_gpus", info.total_gpus}};
  if (!info.model_calibration.empty()) s["run"]["model_calibration"] = info.model_calibration;
  s["counts"] = {{"submitted", jobs.size()}, {"completed", completed}, {"rejected", jobs.size() - completed}};
  s["jct_s"] = distribution(jct, /*with_max=*/true, "jct_s");
  s["wait_s"] = distribution(wait, /*with_max=*/false, "wait_s");
  s["makespan_s"] = any_finished ? round6(makespan, "makespan_s") : ordered_json();
  s["gpu_seconds"] = round6(gpu_seconds, "gpu_seconds");
  s["gpu_utilisation"] = capacity > 0 ? round6(gpu_seconds / capacity, "gpu_utilisation") : ordered_json();
  if (!info.usage.per_type.empty()) write_usage(s, info.usage);
  write_file(path, dump(s));
}

void write_run_json(const std::string& path, const RunInfo& info) {
  ordered_json r;
  r["vnsim_version"] = info.vnsim_version;
  r["simgrid_version"] = info.simgrid_version;
  r["policy"] = info.policy;
  r["cluster"] = info.cluster;
  r["trace"] = info.trace;
  r["seed"] = info.seed;
  r["total_gpus"] = info.total_gpus;
  if (!info.model_calibration.empty()) r["model_calibration"] = info.model_calibration;
  r["wall_s"] = round6(info.wall_s, "wall_s");
  r["scheduler_wall_s"] = round6(info.scheduler_wall_s, "scheduler_wall_s");
  r["scheduler_cpu_s"] = round6(info.scheduler_cpu_s, "scheduler_cpu_s");
  r["scheduler_cpu_measured_calls"] = info.scheduler_cpu_measured_calls;
  r["scheduler_calls"] = info.scheduler_calls;
  r["scheduler_active_jobs_mean"] = round6(info.scheduler_active_jobs_mean, "scheduler_active_jobs_mean");
  r["scheduler_unchanged_calls"] = info.scheduler_unchanged_calls;
  r["scheduler_unchanged_cpu_s"] = round6(info.scheduler_unchanged_cpu_s, "scheduler_unchanged_cpu_s");
  r["scheduler_idle_calls"] = info.scheduler_idle_calls;
  r["scheduler_idle_cpu_s"] = round6(info.scheduler_idle_cpu_s, "scheduler_idle_cpu_s");
  r["peak_rss_mb"] = round6(info.peak_rss_mb, "peak_rss_mb");
  write_file(path, dump(r));
}

}  // namespace vnsim
