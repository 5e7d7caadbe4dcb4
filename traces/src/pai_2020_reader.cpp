// Alibaba PAI 2020 (docs/TRACES.md, "pai-2020"): pai_job_table joined with
// pai_task_table (GPUs, GPU type) and, when present, pai_instance_table (run
// span). Each table is streamed; only per-job aggregates are kept.
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "field_checks.hpp"
#include "gpu_type_names.hpp"
#include "line_reader.hpp"
#include "row_collector.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "trace_format.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::traces_detail {
namespace {

namespace fs = std::filesystem;

struct Span {
  double first_start = std::numeric_limits<double>::infinity();
  double last_end = -std::numeric_limits<double>::infinity();
  void add(std::optional<double> start, std::optional<double> end) {
    if (start && end) {
      first_start = std::min(first_start, *start);
      last_end = std::max(last_end, *end);
    }
  }
  bool known() const { return first_start <= last_end; }
};

// Everything the job table needs from the rows of one job in another table.
struct Parts {
  long first_line = 0;
  std::string bad_row;  // "file:line" of the first unusable row, if any
  double gpus = 0;      // sum of inst_num * plan_gpu / 100
  std::set<std::string> gpu_types;
  Span span;
  bool joined = false;
};
using PartsByJob = std::map<std::string, Parts>;

// The official tables have no header; copies with one are accepted.
bool is_header(std::string_view line) {
  return trim(line.substr(0, line.find(','))) == "job_name";
}

// Streams one table; parse_row fills the Parts of the row's job.
template <class ParseRow>
void read_table(const std::string& file, PartsByJob& parts, RowCollector& rows, ParseRow&& parse_row) {
  LineReader reader(file);
  std::string line;
  while (reader.next(line)) {
    if (is_blank(line) || is_header(line)) continue;
    const long n = reader.line_number();
    const std::string job_name(trim(line.substr(0, line.find(','))));
    try {
      if (job_name.empty()) throw RowError{"job_name is empty"};
      Parts& p = parts[job_name];
      if (p.first_line == 0) p.first_line = n;
      try {
        if (reader.last_line_unterminated()) throw RowError{kUnterminatedRow};
        parse_row(line, p);
      } catch (const RowError&) {
        if (p.bad_row.empty()) p.bad_row = file + ":" + std::to_string(n);
        throw;
      }
    } catch (const RowError& e) {
      rows.bad(file, n, e.reason, e.filtered);
    }
  }
}

void add_task_row(std::string_view line, Parts& p) {
  const auto f = split_fields(line, ',', 10);
  const double inst_num = number_at_least(f[2], "inst_num", 0);
  const double plan_gpu = optional_number(f[8], "plan_gpu", 0).value_or(0);
  p.span.add(optional_number(f[4], "start_time", 0), optional_number(f[5], "end_time", 0));
  if (inst_num * plan_gpu <= 0) return;
  p.gpus += inst_num * plan_gpu / 100;
  const auto type = trim(f[9]);
  if (!type.empty()) p.gpu_types.insert(catalog_gpu_type(type));
}

void add_instance_row(std::string_view line, Parts& p) {
  const auto f = split_fields(line, ',', 9);
  p.span.add(optional_number(f[6], "start_time", 0), optional_number(f[7], "end_time", 0));
}

TraceStatus status_of(std::string_view status) {
  if (status == "Terminated") return TraceStatus::Pass;
  if (status == "Failed") return TraceStatus::Failed;
  if (status == "Running") return TraceStatus::Unknown;
  if (status == "Waiting") throw RowError{"job never started (status Waiting)", true};
  throw RowError{"unknown status " + quoted(status) + " (expected Terminated, Failed, Running or Waiting)"};
}

void mark_joined(PartsByJob& parts, const std::string& job_name) {
  const auto it = parts.find(job_name);
  if (it != parts.end()) it->second.joined = true;
}

Parts& joined_parts(PartsByJob& parts, const std::string& job_name, const std::string& table) {
  const auto it = parts.find(job_name);
  if (it == parts.end()) throw RowError{"job has no rows in " + table};
  if (!it->second.bad_row.empty()) throw RowError{"its row " + it->second.bad_row + " is unusable"};
  return it->second;
}

JobSpec job_of(std::string_view line, PartsByJob& tasks, PartsByJob* instances) {
  const auto f = split_fields(line, ',', 6);
  JobSpec job;
  job.id = std::string(trim(f[0]));
  if (job.id.empty()) throw RowError{"job_name is empty"};
  mark_joined(tasks, job.id);
  if (instances != nullptr) mark_joined(*instances, job.id);
  job.user = std::string(trim(f[2]));
  job.status = status_of(trim(f[3]));
  job.submit_s = number_at_least(f[4], "start_time (submission)", 0);

  const Parts& task = joined_parts(tasks, job.id, "pai_task_table");
  if (task.gpus <= 0) throw RowError{"CPU-only job (no task plans a GPU)", true};
  if (task.gpus > std::numeric_limits<int>::max()) throw RowError{"GPU plan is too large"};
  // A plan below one GPU keeps its share (gpu_milli); larger fractional plans
  // round up to whole GPUs (docs/TRACES.md, "Fractional GPUs"). The small
  // tolerance keeps 3 x 33.3333 % at 1 whole GPU.
  job.gpus = std::max(1, static_cast<int>(std::ceil(task.gpus - 1e-6)));
  const auto milli = static_cast<int>(std::lround(task.gpus * 1000));
  if (job.gpus == 1 && milli < 1000) job.gpu_milli = std::max(1, milli);
  if (task.gpu_types.size() > 1) {
    std::string list;
    for (const auto& t : task.gpu_types) list += (list.empty() ? "" : ", ") + t;
    throw RowError{"tasks ask for different GPU types (" + list + ")"};
  }
  if (task.gpu_types.size() == 1) job.gpu_type = *task.gpu_types.begin();

  Span span = task.span;
  if (instances != nullptr && instances->count(job.id) > 0)
    span = joined_parts(*instances, job.id, "pai_instance_table").span;
  if (!span.known()) throw RowError{"no start and end time in its task or instance rows (never ran?)"};
  job.trace_duration_s = span.last_end - span.first_start;
  return job;
}

void report_unjoined(const PartsByJob& parts, const std::string& file, RowCollector& rows) {
  for (const auto& [job_name, p] : parts)
    if (!p.joined && p.bad_row.empty())
      rows.bad(file, p.first_line, "rows of job '" + job_name + "', which is not in pai_job_table");
}

TraceReadResult read_pai_2020(const std::string& path, BadRowPolicy policy) {
  const bool folder = fs::is_directory(path);
  const fs::path dir = folder ? fs::path(path) : fs::path(path).parent_path();
  const std::string job_file = folder ? (dir / "pai_job_table.csv").string() : path;
  const std::string task_file = (dir / "pai_task_table.csv").string();
  const std::string instance_file = (dir / "pai_instance_table.csv").string();
  if (!fs::exists(task_file))
    throw InputError(job_file + ": pai-2020 needs pai_task_table.csv beside it (" + task_file +
                     " not found)");

  TraceReadResult result;
  result.format = "pai-2020";
  RowCollector rows(policy, result);
  PartsByJob tasks, instances;
  read_table(task_file, tasks, rows, add_task_row);
  const bool have_instances = fs::exists(instance_file);
  if (have_instances) read_table(instance_file, instances, rows, add_instance_row);

  LineReader reader(job_file);
  std::string line;
  while (reader.next(line)) {
    if (is_blank(line) || is_header(line)) continue;
    const bool cut = reader.last_line_unterminated();
    rows.parse(job_file, reader.line_number(), [&] {
      if (cut) throw RowError{kUnterminatedRow};
      return job_of(line, tasks, have_instances ? &instances : nullptr);
    });
  }
  report_unjoined(tasks, task_file, rows);
  if (have_instances) report_unjoined(instances, instance_file, rows);
  return result;
}

// A folder holding pai_job_table.csv, or the job table file itself: the
// reader finds the other tables beside it. Asked before the file is opened,
// since a folder cannot be read line by line.
bool is_pai_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::exists(fs::path(path) / "pai_job_table.csv", ec);
  return fs::path(path).filename().string().rfind("pai_job_table", 0) == 0;
}

const TraceFormatRegistration kPai2020({
    .name = "pai-2020",
    .position = 50,
    .trace = "Alibaba PAI 2020 job, task and instance tables (§5)",
    .detected_by = "a folder holding `pai_job_table.csv`, or a file whose name starts with `pai_job_table` "
                   "(the path decides, before any line)",
    .section = "pai-2020",
    .folder_tables = {"pai_job_table.csv", "pai_task_table.csv", "pai_instance_table.csv"},
    .claims_path = is_pai_path,
    .read_file = read_pai_2020,
});

}  // namespace
}  // namespace vnsim::traces_detail
