// Names, detection and line-parser dispatch of the issue-3 formats.
#include "extra_formats.hpp"

#include <filesystem>

#include "row_parsers.hpp"

namespace vnsim::traces_detail {

std::vector<std::string> extra_format_names() {
  return {"philly-joblog", "pai-2020", "openb-pods", "helios", "gavel", "tiresias"};
}

bool is_pai_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::exists(fs::path(path) / "pai_job_table.csv", ec);
  return fs::path(path).filename().string().rfind("pai_job_table", 0) == 0;
}

std::optional<std::string> detect_extra_format(const std::string& path, std::string_view first_line) {
  if (is_pai_path(path)) return "pai-2020";
  const auto first = first_line.find_first_not_of(" \t");
  if (first != std::string_view::npos && first_line[first] == '[') return "philly-joblog";
  if (looks_like_tiresias_header(first_line)) return "tiresias";
  if (looks_like_openb_header(first_line)) return "openb-pods";
  if (looks_like_helios_header(first_line)) return "helios";
  if (looks_like_gavel_line(first_line)) return "gavel";
  return std::nullopt;
}

std::unique_ptr<LineParser> make_line_parser(const std::string& format, std::string_view first_line) {
  if (format == "openb-pods") return make_openb_pods_parser(first_line);
  if (format == "helios") return make_helios_parser(first_line);
  if (format == "gavel") return make_gavel_parser(first_line);
  if (format == "tiresias") return make_tiresias_parser(first_line);
  return nullptr;
}

}  // namespace vnsim::traces_detail
