// The allocation timeline as a Chrome trace-event file (docs/OUTPUTS.md,
// "vnsim export"). The format is the "JSON Object Format" of Google's Trace
// Event Format document: a `traceEvents` array of complete events (ph "X",
// ts and dur in microseconds), instant events (ph "i") and metadata events
// (ph "M") naming the tracks; chrome://tracing and Perfetto open it.
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "export_views.hpp"
#include "output_tables.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::cli {
namespace {

// One job holding one GPU from a take to its release.
struct Slice {
  long long start_us = 0, end_us = 0;
  std::string job, start_cause, end_cause;
  int milli = 0;
  GpuId gpu = 0;
  int lane = 0;  // > 0 when GPU sharing puts several jobs on the GPU at once
  long take_line = 0;
};

struct Instant {
  long long at_us = 0;
  std::string job, cause;
  GpuId gpu = 0;
  int lane = 0;
};

// Times are printed to the microsecond, so this is exact.
long long micros(double seconds) {
  return std::llround(seconds * 1e6);
}

// Job ids are the trace's text: bytes that are not UTF-8 are replaced, not fatal.
std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

const std::set<std::string> kCauses = {"start", "complete", "preempt", "node-down", "resize", "migrate"};

}  // namespace

std::string chrome_trace_json(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "allocations.csv";
  const Table t = read_table(path);
  const std::string file = path.string();
  const std::size_t time_col = t.column("time", file), job_col = t.column("job_id", file),
                    event_col = t.column("event", file), gpus_col = t.column("allocated_resources", file),
                    milli_col = t.column("gpu_milli", file), cause_col = t.column("cause", file);

  std::map<std::pair<std::string, GpuId>, Slice> open;  // (job, GPU) -> its open slice
  std::map<GpuId, std::vector<bool>> lanes;             // GPU -> which lanes are taken now
  std::vector<Slice> slices;
  std::vector<Instant> instants;
  long long last_us = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    const std::string where = file + ":" + std::to_string(t.lines[i]);
    const long long at = micros(number(r[time_col], where + ": time"));
    if (at < last_us) throw InputError(where + ": time " + r[time_col] + " goes back");
    last_us = at;
    const std::string& job = r[job_col];
    const std::string& cause = r[cause_col];
    if (!kCauses.count(cause)) throw InputError(where + ": unknown cause '" + cause + "'");
    const bool take = r[event_col] == "take";
    if (!take && r[event_col] != "release")
      throw InputError(where + ": event '" + r[event_col] + "' is neither take nor release");
    const int milli = static_cast<int>(std::lround(number(r[milli_col], where + ": gpu_milli")));
    const std::vector<GpuId> gpus = gpu_ids(r[gpus_col], where);
    if (gpus.empty()) throw InputError(where + ": no GPUs in allocated_resources");
    for (GpuId g : gpus) {
      if (g < 0) throw InputError(where + ": GPU id " + std::to_string(g) + " is negative");
      const auto key = std::make_pair(job, g);
      std::vector<bool>& used = lanes[g];
      if (take) {
        if (open.count(key))
          throw InputError(where + ": job '" + job + "' takes GPU " + std::to_string(g) + ", which it holds");
        std::size_t lane = 0;
        while (lane < used.size() && used[lane]) ++lane;
        if (lane == used.size()) used.push_back(false);
        used[lane] = true;
        open[key] = Slice{at, 0, job, cause, "", milli, g, static_cast<int>(lane), t.lines[i]};
      } else {
        auto it = open.find(key);
        if (it == open.end())
          throw InputError(where + ": job '" + job + "' releases GPU " + std::to_string(g) +
                           ", which it does not hold");
        Slice s = it->second;
        open.erase(it);
        used[static_cast<std::size_t>(s.lane)] = false;
        s.end_us = at;
        s.end_cause = cause;
        if (cause == "preempt" || cause == "node-down") instants.push_back({at, job, cause, g, s.lane});
        slices.push_back(std::move(s));
      }
    }
  }
  if (!open.empty()) {
    const Slice& s = open.begin()->second;
    throw InputError(file + ":" + std::to_string(s.take_line) + ": job '" + s.job + "' takes GPU " +
                     std::to_string(s.gpu) + " and never releases it");
  }

  // One thread (track) per GPU and sharing lane, numbered in GPU order.
  std::map<std::pair<GpuId, int>, int> tid;
  for (const auto& [gpu, used] : lanes)
    for (std::size_t lane = 0; lane < used.size(); ++lane) tid.emplace(std::make_pair(gpu, lane), 0);
  int next = 0;
  for (auto& [key, id] : tid) id = next++;

  std::ostringstream out;
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  using ordered = nlohmann::ordered_json;
  out << dump(ordered{{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", "GPUs"}}}});
  for (const auto& [key, id] : tid) {
    std::string name = "GPU " + std::to_string(key.first);
    if (key.second > 0) name += " (shared, " + std::to_string(key.second + 1) + ")";
    out << ",\n"
        << dump(ordered{
               {"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", id}, {"args", {{"name", name}}}});
    out << ",\n"
        << dump(ordered{{"name", "thread_sort_index"},
                        {"ph", "M"},
                        {"pid", 0},
                        {"tid", id},
                        {"args", {{"sort_index", id}}}});
  }
  for (const Slice& s : slices)
    out << ",\n"
        << dump(ordered{
               {"name", s.job},
               {"cat", "allocation"},
               {"ph", "X"},
               {"ts", s.start_us},
               {"dur", s.end_us - s.start_us},
               {"pid", 0},
               {"tid", tid.at({s.gpu, s.lane})},
               {"args",
                {{"job_id", s.job}, {"gpu_milli", s.milli}, {"from", s.start_cause}, {"to", s.end_cause}}}});
  for (const Instant& e : instants)
    out << ",\n"
        << dump(ordered{{"name", e.cause + " " + e.job},
                        {"cat", e.cause},
                        {"ph", "i"},
                        {"s", "t"},
                        {"ts", e.at_us},
                        {"pid", 0},
                        {"tid", tid.at({e.gpu, e.lane})},
                        {"args", {{"job_id", e.job}}}});
  out << "\n]}\n";
  return out.str();
}

}  // namespace vnsim::cli
