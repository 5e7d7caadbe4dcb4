#pragma once
// Trace reading: every reader turns its format into JobSpecs, reports each
// row it cannot use as "file:line: reason", and never crashes on bad input.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vnsim/core/job_spec.hpp"

namespace vnsim {

enum class BadRowPolicy { Skip, Fail };

// Why a row or job was left out (docs/TRACES.md, "Bad rows"): damaged data,
// or a documented rule that filters routine rows (a CPU-only job, a model
// outside the catalog, a --vc or --failed-jobs filter). `--bad-rows fail`
// stops on corrupt rows only.
enum class IssueKind { Corrupt, Filtered };
const char* to_string(IssueKind kind);  // "corrupt", "filtered"

struct TraceIssue {
  std::string file;
  long line = 0;
  std::string reason;
  IssueKind kind = IssueKind::Corrupt;
  std::string message() const { return file + ":" + std::to_string(line) + ": " + reason; }
};

// Rules that turn trace rows into runnable jobs (docs/TRACES.md).
struct JobConstruction {
  std::uint64_t seed = 1;      // model assignment and any other random choice
  std::string cluster_preset;  // cluster on which a trace duration is "alone" run time
};

struct TraceReadResult {
  std::vector<JobSpec> jobs;        // sorted stably by submit time, submit of first = 0
  std::vector<TraceIssue> skipped;  // rows dropped, each with its reason
  std::string format;               // format name actually used
};

// One registered trace format, as the docs and the tools show it. Each
// format registers itself in its own reader file (traces/src/trace_format.hpp).
struct TraceFormatInfo {
  std::string name;
  std::string trace;                       // what the format is and its public source (docs/TRACES.md marks)
  std::string detected_by;                 // the path or first non-blank line that selects it
  std::string section;                     // its section heading in docs/TRACES.md
  std::vector<std::string> folder_tables;  // tables of a folder input (pai-2020), else empty
};

// The registered formats, in detection order: `vnsim trace formats` prints
// them (its --markdown output is docs/TRACES.md's format table).
std::vector<TraceFormatInfo> trace_formats();
// Their names, in the same order: `vnsim replay`'s usage lists them, and
// each has a seed corpus tests/fuzz_corpus/<name>/
// (FuzzCorpus.OneSeedFolderPerFormat), from which the fuzz targets are made.
std::vector<std::string> trace_format_names();
// Asks each format's path claim, then looks at the first non-blank line;
// throws InputError when no format claims it.
std::string detect_trace_format(const std::string& path);

}  // namespace vnsim
