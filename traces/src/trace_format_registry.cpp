// The registry of trace formats (trace_format.hpp) and the public views of
// it: the names, the docs entries and format detection.
#include <algorithm>
#include <stdexcept>

#include "field_checks.hpp"
#include "line_reader.hpp"
#include "row_parsers.hpp"
#include "trace_format.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace traces_detail {
namespace {

// Filled during static initialisation by the TraceFormatRegistration objects
// of the reader files, kept sorted by position.
std::vector<TraceFormat>& registered() {
  static std::vector<TraceFormat> formats;
  return formats;
}

}  // namespace

TraceFormatRegistration::TraceFormatRegistration(TraceFormat format) {
  if (static_cast<bool>(format.line_parser) == static_cast<bool>(format.read_file))
    throw std::logic_error("trace format '" + format.name + "' needs exactly one reader");
  auto& formats = registered();
  for (const TraceFormat& f : formats)
    if (f.name == format.name)
      throw std::logic_error("trace format '" + format.name + "' is registered twice");
  const auto at = std::upper_bound(formats.begin(), formats.end(), format.position,
                                   [](int position, const TraceFormat& f) { return position < f.position; });
  formats.insert(at, std::move(format));
}

const std::vector<TraceFormat>& registered_trace_formats() {
  return registered();
}

const TraceFormat* find_trace_format(std::string_view name) {
  for (const TraceFormat& f : registered())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace traces_detail

namespace {

using traces_detail::FirstLineMatch;
using traces_detail::registered_trace_formats;

std::optional<std::string> format_claiming(std::string_view line, FirstLineMatch match) {
  for (const auto& f : registered_trace_formats())
    if (f.claims_first_line && f.claims_first_line(line) == match) return f.name;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> trace_format_names() {
  std::vector<std::string> names;
  for (const auto& f : registered_trace_formats()) names.push_back(f.name);
  return names;
}

std::vector<TraceFormatInfo> trace_formats() {
  std::vector<TraceFormatInfo> out;
  for (const auto& f : registered_trace_formats())
    out.push_back(TraceFormatInfo{f.name, f.trace, f.detected_by, f.section, f.folder_tables});
  return out;
}

std::string detect_trace_format(const std::string& path) {
  for (const auto& f : registered_trace_formats())
    if (f.claims_path && f.claims_path(path)) return f.name;
  traces_detail::LineReader reader(path);
  const std::string line = traces_detail::first_content_line(reader);
  for (const FirstLineMatch match : {FirstLineMatch::Yes, FirstLineMatch::Fallback})
    if (auto format = format_claiming(line, match)) return *format;
  throw input_error_at(path, reader.line_number(),
                       "unrecognised first line '" + traces_detail::shortened(line) + "' (expected '" +
                           std::string(traces_detail::kPolluxPhillyHeader) + "', '" +
                           std::string(traces_detail::kPolluxWorkloadHeader) +
                           "', a JSON object per line, or another format of docs/TRACES.md)");
}

}  // namespace vnsim
