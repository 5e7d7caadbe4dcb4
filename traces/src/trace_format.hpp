#pragma once
// How a trace format registers itself, in its own reader file, with one
// entry: its name, how it is recognised, its reader and its docs text. Every
// user of the format list reads the registry: read_trace and
// detect_trace_format, trace_format_names() (`vnsim replay --format`'s
// usage, the fuzz-corpus check), trace_formats() (`vnsim trace formats`,
// whose --markdown output is docs/TRACES.md's format table).
//
//   namespace {
//   const TraceFormatRegistration kTiresias({
//       .name = "tiresias", .position = 90, .trace = "...", .detected_by = "...",
//       .claims_first_line = [](std::string_view l) { return ...; },
//       .line_parser = make_tiresias_parser,
//   });
//   }  // namespace
//
// The library is linked whole (traces/CMakeLists.txt), so a registration
// that nothing else references is still linked in.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim::traces_detail {

// Turns one data line into a JobSpec or throws RowError.
class LineParser {
 public:
  virtual ~LineParser() = default;
  virtual JobSpec parse(std::string_view line, long line_number) const = 0;
};

// Whether a first non-blank line marks a format. Detection asks every
// format for Yes before it takes any Fallback claim: a fixed-layout header
// with its columns moved (pollux-philly, pollux-workload) is a fallback, so
// a header that another format claims outright is never taken for it.
enum class FirstLineMatch { No, Yes, Fallback };

// The first-line claim of a format whose test is plain yes or no (no
// Fallback): `.claims_first_line = claim_when<looks_like_x>`.
template <bool (*Looks)(std::string_view)>
FirstLineMatch claim_when(std::string_view line) {
  return Looks(line) ? FirstLineMatch::Yes : FirstLineMatch::No;
}

struct TraceFormat {
  std::string name{};
  int position = 0;           // place in trace_format_names() and in detection (lower first)
  std::string trace{};        // docs: what the format is and its public source
  std::string detected_by{};  // docs: the path or first non-blank line that selects it
  std::string section{};      // docs: the heading of its section in docs/TRACES.md
  // Files a folder input holds, in the order a fuzz input gives them
  // (pai-2020); empty when the input is one file.
  std::vector<std::string> folder_tables{};

  // Detection: a path claim is asked before the file is opened (a format
  // whose input may be a folder); otherwise the first non-blank line decides.
  std::function<bool(const std::string& path)> claims_path{};
  std::function<FirstLineMatch(std::string_view first_line)> claims_first_line{};

  // The reader: exactly one of these two.
  // One row per line: the parser is made from the first non-blank line and
  // throws RowError when that line is not a usable header (or, headerless,
  // a usable first row).
  std::function<std::unique_ptr<LineParser>(std::string_view first_line)> line_parser{};
  // Any other layout (a JSON array, joined tables): the whole file, jobs not
  // yet sorted or rebased.
  std::function<TraceReadResult(const std::string& path, BadRowPolicy policy)> read_file{};

  // The first non-blank line is data (gavel, jsonl), so a RowError from
  // line_parser is a bad row, and the rows before the first good one are
  // skipped like any other (docs/TRACES.md, "Header-less formats").
  bool headerless = false;
  // A last line without '\n' is read normally (jsonl: a cut row is invalid
  // JSON); every other line format refuses it (kUnterminatedRow).
  bool trusts_unterminated_last_row = false;
};

// Registers the format during static initialisation; throws logic_error on
// a name registered twice or an entry without exactly one reader.
class TraceFormatRegistration {
 public:
  explicit TraceFormatRegistration(TraceFormat format);
};

// Every registered format, by position.
const std::vector<TraceFormat>& registered_trace_formats();
// nullptr when no format has that name.
const TraceFormat* find_trace_format(std::string_view name);

}  // namespace vnsim::traces_detail
