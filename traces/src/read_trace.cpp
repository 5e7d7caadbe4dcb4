// Format detection and the reading loop shared by all formats: header check,
// blank-line skipping, bad-row policy, duplicate ids, sort and rebase.
#include <algorithm>
#include <map>
#include <optional>

#include "column_order.hpp"
#include "extra_formats.hpp"
#include "field_checks.hpp"
#include "line_reader.hpp"
#include "row_parsers.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using traces_detail::LineReader;
using traces_detail::RowError;

std::string format_list() {
  std::string list;
  for (const auto& name : trace_format_names()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// Advances to the first non-blank line; throws when the file has none.
std::string first_content_line(LineReader& reader) {
  std::string line;
  while (reader.next(line))
    if (!traces_detail::is_blank(line)) return line;
  throw InputError(reader.path() + ": empty trace (no header or data line)");
}

std::string_view canonical_header(const std::string& format) {
  return format == "pollux-philly" ? traces_detail::kPolluxPhillyHeader
                                   : traces_detail::kPolluxWorkloadHeader;
}

std::string shorten(const std::string& s) {
  return s.size() <= 80 ? s : s.substr(0, 77) + "...";
}

JobSpec parse_row(const std::string& format, const std::string& line, long line_number) {
  if (format == "pollux-philly") return traces_detail::parse_pollux_philly_row(line, line_number);
  if (format == "pollux-workload")
    return traces_detail::parse_pollux_workload_row(line, ModelCatalog::builtin());
  return traces_detail::parse_jsonl_row(line, ModelCatalog::builtin());
}

// Columns pollux-philly's reader does not use, and what a row gets without
// them: gpu_time is only checked for form, cluster becomes the job's vc.
const std::vector<std::pair<std::string, std::string>>& optional_columns(const std::string& format) {
  static const std::vector<std::pair<std::string, std::string>> philly = {{"gpu_time", "0"}, {"cluster", ""}};
  static const std::vector<std::pair<std::string, std::string>> none;
  return format == "pollux-philly" ? philly : none;
}

void sort_and_rebase(std::vector<JobSpec>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  if (jobs.empty()) return;
  const double origin = jobs.front().submit_s;
  for (auto& job : jobs) job.submit_s -= origin;
}

}  // namespace

const char* to_string(IssueKind kind) {
  return kind == IssueKind::Filtered ? "filtered" : "corrupt";
}

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names = {"pollux-philly", "pollux-workload", "jsonl"};
  for (auto& name : traces_detail::extra_format_names()) names.push_back(std::move(name));
  return names;
}

std::string detect_trace_format(const std::string& path) {
  if (traces_detail::is_pai_path(path)) return "pai-2020";
  LineReader reader(path);
  const std::string line = first_content_line(reader);
  if (auto format = traces_detail::format_of_first_line(line)) return *format;
  if (auto format = traces_detail::detect_extra_format(path, line)) return *format;
  // The fixed-layout CSVs with their columns reordered, extended or missing
  // an unused one.
  for (const char* format : {"pollux-philly", "pollux-workload"})
    if (traces_detail::has_columns_of(line, canonical_header(format), optional_columns(format)))
      return format;
  throw input_error_at(path, reader.line_number(),
                       "unrecognised first line '" + shorten(line) + "' (expected '" +
                           std::string(traces_detail::kPolluxPhillyHeader) + "', '" +
                           std::string(traces_detail::kPolluxWorkloadHeader) +
                           "', a JSON object per line, or another format of docs/TRACES.md)");
}

TraceReadResult read_trace(const std::string& path, const std::string& format, BadRowPolicy policy) {
  const auto names = trace_format_names();
  if (!format.empty() && std::find(names.begin(), names.end(), format) == names.end())
    throw InputError("unknown trace format '" + format + "' (expected one of: " + format_list() + ")");

  TraceReadResult result;
  result.format = format.empty() ? detect_trace_format(path) : format;
  if (result.format == "philly-joblog" || result.format == "pai-2020") {
    result = result.format == "pai-2020" ? traces_detail::read_pai_2020(path, policy)
                                         : traces_detail::read_philly_joblog(path, policy);
    sort_and_rebase(result.jobs);
    return result;
  }
  LineReader reader(path);
  std::string line = first_content_line(reader);
  std::unique_ptr<traces_detail::LineParser> parser;
  while (!parser) {
    try {
      parser = traces_detail::make_line_parser(result.format, line);
      break;
    } catch (const RowError& e) {
      // A header-less format learns its layout from the first good row, so a
      // bad first row is a bad row like any other, not a bad file.
      if (result.format != "gavel" || policy == BadRowPolicy::Fail)
        throw input_error_at(path, reader.line_number(), e.reason);
      result.skipped.push_back(TraceIssue{path, reader.line_number(), e.reason});
    }
    do {
      if (!reader.next(line)) return result;  // no good row at all
    } while (traces_detail::is_blank(line));
  }
  const bool has_header = parser ? !parser->first_line_is_data() : result.format != "jsonl";
  std::optional<traces_detail::ColumnOrder> order;  // set when the header is not the canonical one
  if (has_header && !parser) {
    const std::string_view expected = canonical_header(result.format);
    if (line != expected) {
      try {
        order.emplace(line, expected, optional_columns(result.format));
      } catch (const RowError& e) {
        throw input_error_at(path, reader.line_number(),
                             "header '" + shorten(line) + "' is not the " + result.format + " header '" +
                                 std::string(expected) + "': " + e.reason);
      }
    }
  }

  std::map<std::string, long> first_line_of_id;
  auto handle = [&](const std::string& row, long line_number) {
    try {
      // A CSV row cut inside its last field still splits into the right
      // number of fields (4,708 s read as 11.9M s): an unterminated last row
      // is trusted only in JSON Lines, where a cut leaves invalid JSON.
      if (reader.last_line_unterminated() && result.format != "jsonl")
        throw RowError{traces_detail::kUnterminatedRow};
      JobSpec job = parser  ? parser->parse(row, line_number)
                    : order ? parse_row(result.format, order->canonical_row(row), line_number)
                            : parse_row(result.format, row, line_number);
      traces_detail::check_plausible(job);
      const auto [it, inserted] = first_line_of_id.emplace(job.id, line_number);
      if (!inserted)
        throw RowError{"duplicate job id '" + job.id + "' (first on line " + std::to_string(it->second) +
                       ")"};
      result.jobs.push_back(std::move(job));
    } catch (const RowError& e) {
      if (policy == BadRowPolicy::Fail && !e.filtered) throw input_error_at(path, line_number, e.reason);
      result.skipped.push_back(
          TraceIssue{path, line_number, e.reason, e.filtered ? IssueKind::Filtered : IssueKind::Corrupt});
    }
  };
  if (!has_header) handle(line, reader.line_number());
  while (reader.next(line))
    if (!traces_detail::is_blank(line)) handle(line, reader.line_number());

  sort_and_rebase(result.jobs);
  return result;
}

}  // namespace vnsim
