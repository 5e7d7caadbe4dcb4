#pragma once
// The trace formats of issue 3 (docs/TRACES.md): raw Philly job log, PAI
// 2020, Alibaba GPU 2023 openb pods, Helios/Acme, Gavel and Tiresias.
// read_trace.cpp dispatches to these; each format lives in its own file.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vnsim/core/job_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim::traces_detail {

std::vector<std::string> extra_format_names();

// Format of a file that the original three formats do not claim: by path
// (a PAI folder or pai_job_table file) or by its first non-blank line.
std::optional<std::string> detect_extra_format(const std::string& path, std::string_view first_line);
// True for "pai-2020": it may name a folder, which LineReader cannot open.
bool is_pai_path(const std::string& path);

// Turns one data line into a JobSpec or throws RowError.
class LineParser {
 public:
  virtual ~LineParser() = default;
  virtual JobSpec parse(std::string_view line, long line_number) const = 0;
  // Header-less formats (gavel) also parse the first non-blank line.
  virtual bool first_line_is_data() const { return false; }
};

// For the line formats among extra_format_names(); nullptr for the others.
// Throws RowError when first_line is not a usable header of that format.
std::unique_ptr<LineParser> make_line_parser(const std::string& format, std::string_view first_line);

// Formats that are not one row per line. Jobs are not yet sorted or rebased.
TraceReadResult read_philly_joblog(const std::string& path, BadRowPolicy policy);
TraceReadResult read_pai_2020(const std::string& path, BadRowPolicy policy);

std::unique_ptr<LineParser> make_openb_pods_parser(std::string_view header);
std::unique_ptr<LineParser> make_helios_parser(std::string_view header);
std::unique_ptr<LineParser> make_gavel_parser(std::string_view first_line);
std::unique_ptr<LineParser> make_tiresias_parser(std::string_view header);

// Header tests used by detection and by the parsers themselves.
bool looks_like_openb_header(std::string_view line);
bool looks_like_helios_header(std::string_view line);
bool looks_like_tiresias_header(std::string_view line);
bool looks_like_gavel_line(std::string_view line);

}  // namespace vnsim::traces_detail
