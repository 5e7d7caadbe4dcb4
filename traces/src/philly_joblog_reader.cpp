// Raw Philly cluster_job_log (docs/TRACES.md, "philly-joblog"): one JSON
// array of job objects, read one element at a time.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "json_array_splitter.hpp"
#include "row_collector.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"
#include "trace_format.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::traces_detail {
namespace {

using nlohmann::json;

std::string string_member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw RowError{std::string("missing field '") + key + "'"};
  if (!it->is_string()) throw RowError{std::string("field '") + key + "' must be a string"};
  return it->get<std::string>();
}

// The log writes a missing time as the string "None" (Python's repr), or
// occasionally as null.
std::optional<std::int64_t> time_member(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw RowError{where + "missing field '" + key + "'"};
  if (it->is_null() || (it->is_string() && it->get<std::string>() == "None")) return std::nullopt;
  if (!it->is_string()) throw RowError{where + "field '" + key + "' must be a string"};
  const auto t = parse_naive_timestamp(it->get<std::string>());
  if (!t)
    throw RowError{where + key + " '" + it->get<std::string>() + "' is not a valid YYYY-MM-DD HH:MM:SS time"};
  return t;
}

TraceStatus status_of(const std::string& status) {
  if (status == "Pass") return TraceStatus::Pass;
  if (status == "Killed") return TraceStatus::Killed;
  if (status == "Failed") return TraceStatus::Failed;
  throw RowError{"unknown status '" + status + "' (expected Pass, Killed or Failed)"};
}

int gpus_of_attempt(const json& attempt) {
  const auto detail = attempt.find("detail");
  if (detail == attempt.end() || !detail->is_array()) throw RowError{"last attempt has no 'detail' list"};
  std::size_t gpus = 0;
  for (const auto& machine : *detail) {
    if (!machine.is_object()) throw RowError{"last attempt: a 'detail' entry is not an object"};
    const auto list = machine.find("gpus");
    if (list == machine.end() || !list->is_array())
      throw RowError{"last attempt: a 'detail' entry has no 'gpus' list"};
    gpus += list->size();
  }
  if (gpus == 0) throw RowError{"last attempt has no GPUs"};
  if (gpus > 1000000) throw RowError{"last attempt lists more than 1000000 GPUs"};
  return static_cast<int>(gpus);
}

JobSpec job_of(const json& obj) {
  if (!obj.is_object()) throw RowError{"expected a job object"};
  JobSpec job;
  job.id = string_member(obj, "jobid");
  if (job.id.empty()) throw RowError{"field 'jobid' is empty"};
  job.status = status_of(string_member(obj, "status"));
  job.vc = string_member(obj, "vc");
  job.user = string_member(obj, "user");
  const auto submit = time_member(obj, "submitted_time", "");
  if (!submit) throw RowError{"submitted_time is None"};
  job.submit_s = static_cast<double>(*submit);

  const auto attempts = obj.find("attempts");
  if (attempts == obj.end() || !attempts->is_array()) throw RowError{"missing 'attempts' list"};
  if (attempts->empty()) throw RowError{"job never started (no attempts)", true};
  for (const auto& attempt : *attempts)
    if (!attempt.is_object()) throw RowError{"an attempt is not an object"};
  const json& first = attempts->front();
  const json& last = attempts->back();
  const auto start = time_member(first, "start_time", "first attempt: ");
  if (!start) throw RowError{"first attempt start_time is None"};
  const auto end = time_member(last, "end_time", "last attempt: ");
  if (!end)
    throw RowError{"last attempt end_time is None (running when the trace was captured, or not logged)"};
  if (*end < *start) throw RowError{"last attempt ends before the first attempt starts"};
  job.trace_duration_s = static_cast<double>(*end - *start);
  job.gpus = gpus_of_attempt(last);
  return job;
}

std::string json_error_reason(const std::string& what) {
  // nlohmann messages start with "[json.exception.parse_error.101] ".
  const auto bracket = what.find("] ");
  return "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2));
}

JobSpec parse_element(const JsonElement& element) {
  if (element.truncated) throw RowError{"file ends inside this job object"};
  if (element.oversized) throw RowError{"job object is larger than 64 MiB"};
  if (element.too_deep) throw RowError{"job object is nested more than 64 levels deep"};
  if (element.missing_separator) throw RowError{"expected exactly one ',' before this element"};
  json obj;
  try {
    obj = json::parse(element.text);
  } catch (const json::exception& e) {
    throw RowError{json_error_reason(e.what())};
  }
  return job_of(obj);
}

TraceReadResult read_philly_joblog(const std::string& path, BadRowPolicy policy) {
  if (std::filesystem::is_directory(path)) throw InputError(path + ": is a directory, not a trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open trace file");
  JsonArraySplitter splitter(in);
  if (!splitter.open())
    throw input_error_at(path, splitter.line(),
                         "expected a JSON array of job objects (the file must start with '[')");

  TraceReadResult result;
  result.format = "philly-joblog";
  RowCollector rows(policy, result);
  JsonElement element;
  bool truncated = false;
  while (splitter.next(element)) {
    truncated = element.truncated;
    rows.parse(path, element.start_line, [&] { return parse_element(element); });
  }
  if (in.bad()) throw input_error_at(path, splitter.line(), "read error");
  if (truncated) return result;  // already reported on the unfinished element
  if (!splitter.closed())
    rows.bad(path, splitter.line(), "file ends before the closing ']' of the job array");
  else if (!splitter.only_whitespace_after())
    rows.bad(path, splitter.line(), "unexpected text after the closing ']' of the job array");
  return result;
}

const TraceFormatRegistration kPhillyJoblog({
    .name = "philly-joblog",
    .position = 40,
    .trace = "raw Philly `cluster_job_log`, one JSON array (§2.1)",
    .detected_by = "starts with `[`",
    .section = "philly-joblog",
    .claims_first_line =
        [](std::string_view line) {
          const auto first = line.find_first_not_of(" \t");
          return first != std::string_view::npos && line[first] == '[' ? FirstLineMatch::Yes
                                                                       : FirstLineMatch::No;
        },
    .read_file = read_philly_joblog,
});

}  // namespace
}  // namespace vnsim::traces_detail
