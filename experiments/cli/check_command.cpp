// `vnsim check OUT_DIR`: replays allocations.csv and checks the invariants a
// run's outputs must keep (docs/OUTPUTS.md, "vnsim check").
#include "check_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "allocations_csv.hpp"
#include "args.hpp"
#include "check_energy.hpp"
#include "output_tables.hpp"
#include "trace_options.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/sim/allocation_check.hpp"

namespace vnsim::cli {
namespace {

namespace fs = std::filesystem;

// Exit code when the outputs break an invariant (docs/OUTPUTS.md, "Exit codes").
constexpr int kCheckFailed = 1;

// GPU time held by at least one job, summed over GPUs (what the energy meter
// counts as busy), the time of the last change, and the GPUs taken. Ids out
// of the cluster are left to first_allocation_error.
HeldTimeline held_timeline(const std::vector<AllocationEvent>& log, int gpu_count) {
  HeldTimeline h;
  std::vector<int> tenants(static_cast<std::size_t>(std::max(gpu_count, 0)), 0);
  std::vector<double> since(tenants.size(), 0);
  for (const AllocationEvent& e : log) {
    h.span_s = std::max(h.span_s, e.time_s);
    if (e.taken) h.gpu_takes += e.gpus.size();
    for (GpuId g : e.gpus) {
      if (g < 0 || static_cast<std::size_t>(g) >= tenants.size()) continue;
      const auto i = static_cast<std::size_t>(g);
      if (e.taken && tenants[i]++ == 0) since[i] = e.time_s;
      if (!e.taken && tenants[i] > 0 && --tenants[i] == 0) h.union_gpu_s += e.time_s - since[i];
    }
  }
  return h;
}

int check_run(const fs::path& dir) {
  const fs::path jobs_path = dir / "jobs.csv", alloc_path = dir / "allocations.csv";

  const Table jobs = read_table(jobs_path);
  const std::size_t id_col = jobs.column("job_id", jobs_path.string()),
                    state_col = jobs.column("final_state", jobs_path.string()),
                    finish_col = jobs.column("finish_time", jobs_path.string()),
                    gpu_s_col = jobs.column("gpu_seconds", jobs_path.string()),
                    energy_col = jobs.column("energy_j", jobs_path.string()),
                    submit_col = jobs.column("submission_time", jobs_path.string());
  std::map<std::string, JobIndex> index;
  for (std::size_t i = 0; i < jobs.rows.size(); ++i)
    if (!index.emplace(jobs.rows[i][id_col], static_cast<JobIndex>(i)).second)
      throw InputError(jobs_path.string() + ":" + std::to_string(jobs.lines[i]) + ": job '" +
                       jobs.rows[i][id_col] + "' listed twice");

  std::ifstream summary_file(dir / "summary.json");
  if (!summary_file) throw InputError((dir / "summary.json").string() + ": cannot read");
  nlohmann::json summary;
  try {
    summary = nlohmann::json::parse(summary_file);
  } catch (const nlohmann::json::exception& e) {
    throw InputError((dir / "summary.json").string() + ": not valid JSON (" + e.what() + ")");
  }

  const Table alloc = read_table(alloc_path);
  const std::size_t t_col = alloc.column("time", alloc_path.string()),
                    job_col = alloc.column("job_id", alloc_path.string()),
                    event_col = alloc.column("event", alloc_path.string()),
                    gpus_col = alloc.column("allocated_resources", alloc_path.string()),
                    milli_col = alloc.column("gpu_milli", alloc_path.string()),
                    cause_col = alloc.column("cause", alloc_path.string());
  std::vector<AllocationEvent> log;
  std::vector<double> held_gpu_s(jobs.rows.size(), 0), taken_at(jobs.rows.size(), -1);
  std::vector<double> last_release(jobs.rows.size(), -1);
  std::vector<std::string> last_cause(jobs.rows.size());
  std::vector<double> tolerance(jobs.rows.size(), 1e-9);
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < alloc.rows.size(); ++i) {
    const auto& r = alloc.rows[i];
    const std::string where = alloc_path.string() + ":" + std::to_string(alloc.lines[i]);
    auto it = index.find(r[job_col]);
    if (it == index.end()) throw InputError(where + ": job '" + r[job_col] + "' is not in jobs.csv");
    AllocationEvent e{number(r[t_col], where), it->second, r[event_col] == "take",
                      gpu_ids(r[gpus_col], where),
                      static_cast<int>(std::lround(number(r[milli_col], where)))};
    if (r[event_col] != "take" && r[event_col] != "release")
      throw InputError(where + ": event '" + r[event_col] + "' is neither take nor release");
    const auto j = static_cast<std::size_t>(e.job);
    if (e.taken) {
      taken_at[j] = e.time_s;
    } else if (taken_at[j] >= 0) {
      const double share = static_cast<double>(e.milli) / kGpuMilli;
      held_gpu_s[j] += static_cast<double>(e.gpus.size()) * (e.time_s - taken_at[j]) * share;
      // Times are printed to the microsecond: each end may be 0.5 us off.
      tolerance[j] += static_cast<double>(e.gpus.size()) * 1e-6;
      taken_at[j] = -1;
      last_release[j] = e.time_s;
      last_cause[j] = r[cause_col];
    }
    log.push_back(std::move(e));
  }
  const int gpu_count = summary.at("run").at("total_gpus").get<int>();
  const HeldTimeline held = held_timeline(log, gpu_count);
  if (std::string error = first_allocation_error(log, gpu_count); !error.empty()) {
    // Name the row rather than the event index.
    const std::size_t space = error.find(' '), paren = error.find(' ', space + 1);
    if (error.rfind("event ", 0) == 0 && space != std::string::npos) {
      const std::size_t k = std::stoul(error.substr(space + 1, paren - space - 1));
      error = alloc_path.string() + ":" + std::to_string(alloc.lines.at(k)) + ":" + error.substr(paren);
    }
    problems.push_back(error);
  }

  double total_gpu_s = 0, total_tolerance = 1e-6, last_submit_s = 0;
  std::vector<JobEnergy> job_energy;
  for (std::size_t j = 0; j < jobs.rows.size(); ++j) {
    const auto& row = jobs.rows[j];
    const std::string who =
        jobs_path.string() + ":" + std::to_string(jobs.lines[j]) + ": job '" + row[id_col] + "'";
    const std::string& state = row[state_col];
    const double recorded = number(row[gpu_s_col], who + " gpu_seconds");
    job_energy.push_back({who, number(row[energy_col], who + " energy_j"), recorded});
    last_submit_s = std::max(last_submit_s, number(row[submit_col], who + " submission_time"));
    total_gpu_s += held_gpu_s[j];
    total_tolerance += tolerance[j];
    if (state == "COMPLETED") {
      const double finish = number(row[finish_col], who + " finish_time");
      if (last_cause[j] != "complete" || std::fabs(last_release[j] - finish) > 1e-6)
        problems.push_back(who + ": COMPLETED at " + row[finish_col] +
                           " s, but allocations.csv has no release with cause 'complete' then");
    } else if (state == "REJECTED") {
      if (last_release[j] >= 0 || taken_at[j] >= 0)
        problems.push_back(who + ": REJECTED, but allocations.csv gives it GPUs");
    } else {
      problems.push_back(who + ": final_state '" + state + "' is neither COMPLETED nor REJECTED");
    }
    if (std::fabs(held_gpu_s[j] - recorded) > tolerance[j] + 1e-9 * std::fabs(recorded)) {
      char text[160];
      std::snprintf(text, sizeof text, ": gpu_seconds %.6f, but its allocations add up to %.6f", recorded,
                    held_gpu_s[j]);
      problems.push_back(who + text);
    }
  }
  const auto submitted = summary.at("counts").at("submitted").get<std::size_t>();
  if (submitted != jobs.rows.size())
    problems.push_back("summary.json counts.submitted is " + std::to_string(submitted) + ", jobs.csv has " +
                       std::to_string(jobs.rows.size()) + " jobs");
  const double summary_gpu_s = summary.at("gpu_seconds").get<double>();
  if (std::fabs(summary_gpu_s - total_gpu_s) > total_tolerance + 1e-9 * std::fabs(summary_gpu_s)) {
    char text[160];
    std::snprintf(text, sizeof text, "summary.json gpu_seconds is %.6f, but the allocations add up to %.6f",
                  summary_gpu_s, total_gpu_s);
    problems.push_back(text);
  }

  HeldTimeline span = held;
  span.span_s = std::max(held.span_s, last_submit_s);
  std::string energy_note;
  for (auto& p : energy_problems(summary, span, job_energy, energy_note)) problems.push_back(std::move(p));

  if (!problems.empty()) {
    for (std::size_t i = 0; i < problems.size() && i < 20; ++i)
      std::fprintf(stderr, "vnsim check: %s\n", printable(problems[i]).c_str());
    std::fprintf(stderr, "vnsim check: %s: %zu problem(s)\n", dir.string().c_str(), problems.size());
    return kCheckFailed;
  }
  std::printf(
      "vnsim check: %s: ok (%zu jobs, %zu allocation changes, no GPU over-committed, %.6f GPU-s as in "
      "summary.json, %s)\n",
      dir.string().c_str(), jobs.rows.size(), log.size(), total_gpu_s, energy_note.c_str());
  return 0;
}

}  // namespace

const char* check_usage() {
  return "vnsim check OUT_DIR|SWEEP_DIR   verify a replay's allocations.csv against jobs.csv and "
         "summary.json\n"
         "             (a sweep folder: every run folder under its runs/ that has an allocations.csv,\n"
         "             one line per run and a summary line)\n";
}

namespace {

// A sweep folder: each finished run with a timeline is checked on its own,
// so one damaged run does not hide the others; the exit code is the worst
// run's (1: an invariant broken, 2: a run's files cannot be read).
int check_sweep(const fs::path& sweep) {
  std::vector<fs::path> runs;  // sorted, so the output order does not depend on the file system
  std::size_t unfinished = 0, untimed = 0;
  for (const auto& entry : fs::directory_iterator(sweep / "runs")) {
    if (!entry.is_directory()) continue;
    if (!fs::exists(entry.path() / "summary.json"))
      ++unfinished;
    else if (!fs::exists(entry.path() / "allocations.csv"))
      ++untimed;  // written before allocations.csv existed
    else
      runs.push_back(entry.path());
  }
  if (runs.empty())
    throw InputError((sweep / "runs").string() + ": no finished run folder with allocations.csv (" +
                     std::to_string(untimed) + " finished without one, " + std::to_string(unfinished) +
                     " unfinished)");
  std::sort(runs.begin(), runs.end());
  int worst = 0;
  std::size_t failed = 0, unreadable = 0;
  for (const auto& run : runs) {
    int code = 0;
    try {
      code = check_run(run);
    } catch (const InputError& e) {
      std::fprintf(stderr, "vnsim check: %s: error: %s\n", run.string().c_str(), printable(e.what()).c_str());
      code = 2;
    }
    if (code == kCheckFailed) ++failed;
    if (code == 2) ++unreadable;
    worst = std::max(worst, code);
  }
  std::printf("vnsim check: %s: %zu runs checked: %zu ok, %zu break an invariant, %zu unreadable",
              sweep.string().c_str(), runs.size(), runs.size() - failed - unreadable, failed, unreadable);
  if (untimed > 0) std::printf("; %zu finished without allocations.csv, not checked", untimed);
  if (unfinished > 0) std::printf("; %zu unfinished (no summary.json), not checked", unfinished);
  std::printf("\n");
  return worst;
}

}  // namespace

int run_check_command(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  const std::vector<std::string> positionals = take_positionals(argv, {});
  if (positionals.size() != 1)
    throw InputError("check: expected one OUT_DIR, usage: " + std::string(check_usage()));
  Args args(argv, {}, {});
  const fs::path dir = positionals[0];
  if (fs::exists(dir / "jobs.csv") || !fs::is_directory(dir / "runs")) return check_run(dir);
  return check_sweep(dir);
}

}  // namespace vnsim::cli
