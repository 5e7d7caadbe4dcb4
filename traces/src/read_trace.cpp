// The reading loop shared by every format: format lookup, the header or
// first row, blank-line skipping, bad-row policy, duplicate ids, sort and
// rebase. What differs between formats is in their registrations
// (trace_format.hpp).
#include <algorithm>
#include <map>

#include "field_checks.hpp"
#include "line_reader.hpp"
#include "row_parsers.hpp"
#include "trace_format.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using traces_detail::LineReader;
using traces_detail::RowError;
using traces_detail::TraceFormat;

std::string format_list() {
  std::string list;
  for (const auto& name : trace_format_names()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

void sort_and_rebase(std::vector<JobSpec>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  if (jobs.empty()) return;
  const double origin = jobs.front().submit_s;
  for (auto& job : jobs) job.submit_s -= origin;
}

TraceReadResult read_lines(const std::string& path, const TraceFormat& format, BadRowPolicy policy) {
  TraceReadResult result;
  result.format = format.name;
  LineReader reader(path);
  std::string line = traces_detail::first_content_line(reader);
  std::unique_ptr<traces_detail::LineParser> parser;
  while (!parser) {
    try {
      parser = format.line_parser(line);
      break;
    } catch (const RowError& e) {
      // A header-less format learns its layout from the first good row, so a
      // bad first row is a bad row like any other, not a bad file.
      if (!format.headerless || policy == BadRowPolicy::Fail)
        throw input_error_at(path, reader.line_number(), e.reason);
      result.skipped.push_back(TraceIssue{path, reader.line_number(), e.reason});
    }
    do {
      if (!reader.next(line)) return result;  // no good row at all
    } while (traces_detail::is_blank(line));
  }

  std::map<std::string, long> first_line_of_id;
  auto handle = [&](const std::string& row, long line_number) {
    try {
      // A CSV row cut inside its last field still splits into the right
      // number of fields (4,708 s read as 11.9M s): an unterminated last row
      // is trusted only where a cut leaves invalid JSON.
      if (reader.last_line_unterminated() && !format.trusts_unterminated_last_row)
        throw RowError{traces_detail::kUnterminatedRow};
      JobSpec job = parser->parse(row, line_number);
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
  if (format.headerless) handle(line, reader.line_number());
  while (reader.next(line))
    if (!traces_detail::is_blank(line)) handle(line, reader.line_number());
  return result;
}

}  // namespace

const char* to_string(IssueKind kind) {
  return kind == IssueKind::Filtered ? "filtered" : "corrupt";
}

TraceReadResult read_trace(const std::string& path, const std::string& format, BadRowPolicy policy) {
  const TraceFormat* chosen =
      traces_detail::find_trace_format(format.empty() ? detect_trace_format(path) : format);
  if (chosen == nullptr)
    throw InputError("unknown trace format '" + format + "' (expected one of: " + format_list() + ")");
  TraceReadResult result =
      chosen->read_file ? chosen->read_file(path, policy) : read_lines(path, *chosen, policy);
  result.format = chosen->name;
  sort_and_rebase(result.jobs);
  return result;
}

}  // namespace vnsim
