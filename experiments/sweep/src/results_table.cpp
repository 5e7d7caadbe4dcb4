// results.csv rows. Metrics are copied from summary.json as printed there
// (already rounded by the replay), so the table is byte-deterministic.
#include "vnsim/sweep/results_table.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vnsim/core/error.hpp"
#include "vnsim/core/job_record.hpp"
#include "vnsim/sweep/run_executor.hpp"

namespace vnsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Summary values as text; JSON null (no data) becomes an empty cell.
std::string metric(const json& summary, const json::json_pointer& ptr) {
  if (!summary.contains(ptr) || summary.at(ptr).is_null()) return "";
  return summary.at(ptr).dump();
}

// The last non-empty line: the replay's one-line error comes last on stderr.
std::string last_line(const std::string& text) {
  std::string last, line;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

const char* const kMetricColumns[][2] = {
    {"submitted", "/counts/submitted"}, {"completed", "/counts/completed"},
    {"rejected", "/counts/rejected"},   {"jct_mean_s", "/jct_s/mean"},
    {"jct_median_s", "/jct_s/median"},  {"jct_p95_s", "/jct_s/p95"},
    {"jct_p99_s", "/jct_s/p99"},        {"wait_mean_s", "/wait_s/mean"},
    {"makespan_s", "/makespan_s"},      {"gpu_utilisation", "/gpu_utilisation"}};

}  // namespace

std::string results_header() {
  std::string h =
      "run_index,run_id,cluster,trace,trace_options,policy,macro_iterations,seed,status,exit_code,error";
  for (const auto& m : kMetricColumns) h += std::string(",") + m[0];
  return h + ",run_dir";
}

std::string results_row(const RunSpec& run, const std::string& out_dir, bool sweep_interrupted) {
  const fs::path dir = run_dir(out_dir, run);
  std::string status = "not-run", exit_code, error;
  json summary;
  if (fs::exists(dir / "summary.json")) {
    status = "ok";
    try {
      summary = json::parse(read_text(dir / "summary.json"));
    } catch (const json::exception&) {  // parse_error, or out_of_range for a number that overflows
      status = "failed";
      error = (dir / "summary.json").string() + ": not valid JSON";
    }
  } else if (fs::exists(dir / "exit_code.txt")) {
    status = "failed";
    exit_code = last_line(read_text(dir / "exit_code.txt"));
    error = last_line(read_text(dir / "error.txt"));
  } else if (sweep_interrupted) {
    status = "interrupted";  // not started, or stopped by the sweep's SIGINT/SIGTERM
  }
  std::string row = std::to_string(run.index) + "," + run.id + "," + csv_field(run.cluster.name) + "," +
                    csv_field(run.trace.label) + "," + csv_field(run.trace_options_text()) + "," +
                    csv_field(run.policy.label) + "," +
                    (run.macro_iterations > 0 ? std::to_string(run.macro_iterations) : "") + "," +
                    std::to_string(run.seed) + "," + status + "," + exit_code + "," + csv_field(error);
  for (const auto& m : kMetricColumns) row += "," + metric(summary, json::json_pointer(m[1]));
  return row + "," + csv_field((fs::path("runs") / run.id).string());
}

void write_results_csv(const std::string& path, const std::vector<std::string>& rows) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << results_header() << "\n";
    for (const auto& r : rows) f << r << "\n";
    if (!f) throw InputError(tmp + ": cannot write");
  }
  fs::rename(tmp, path);
}

}  // namespace vnsim::sweep
