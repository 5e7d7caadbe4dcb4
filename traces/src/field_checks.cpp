#include "field_checks.hpp"

#include <charconv>
#include <cstdio>

#include "row_parsers.hpp"
#include "text_fields.hpp"

namespace vnsim::traces_detail {
namespace {

std::string shortest(double v) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(v);
}

}  // namespace

std::string quoted(std::string_view field) {
  field = trim(field);
  if (field.size() > 80) return "'" + std::string(field.substr(0, 77)) + "...'";
  return "'" + std::string(field) + "'";
}

std::vector<std::string_view> split_fields(std::string_view line, char separator, std::size_t count,
                                           bool extra_allowed) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(separator, start);
    fields.push_back(
        line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (fields.size() == count || (extra_allowed && fields.size() > count)) return fields;
  const std::string what = separator == '\t' ? "tab" : "comma";
  throw RowError{"expected " + std::string(extra_allowed ? "at least " : "") + std::to_string(count) + " " +
                 what + "-separated fields, found " + std::to_string(fields.size())};
}

double number_at_least(std::string_view field, const std::string& column, double min) {
  const auto v = parse_finite_double(field);
  if (!v) throw RowError{column + " " + quoted(field) + " is not a number"};
  if (*v < min)
    throw RowError{column + " " + std::string(trim(field)) +
                   (min == 0 ? std::string(" is negative") : " is below " + shortest(min))};
  return *v;
}

std::int64_t integer_in(std::string_view field, const std::string& column, std::int64_t min,
                        std::int64_t max) {
  const auto v = parse_integer(field);
  if (!v) throw RowError{column + " " + quoted(field) + " is not an integer"};
  if (*v < min) throw RowError{column + " " + std::to_string(*v) + " is < " + std::to_string(min)};
  if (*v > max) throw RowError{column + " " + std::to_string(*v) + " is > " + std::to_string(max)};
  return *v;
}

std::optional<double> optional_number(std::string_view field, const std::string& column, double min) {
  if (trim(field).empty()) return std::nullopt;
  return number_at_least(field, column, min);
}

}  // namespace vnsim::traces_detail

namespace vnsim::traces_detail {

void check_plausible(const JobSpec& job) {
  if (job.trace_duration_s > kMaxPlausibleDurationS) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", job.trace_duration_s);
    throw RowError{"duration " + std::string(text) + " s is longer than ten years (a damaged row?)"};
  }
  if (job.gpus > kMaxPlausibleGpus)
    throw RowError{"asks for " + std::to_string(job.gpus) + " GPUs, more than " +
                   std::to_string(kMaxPlausibleGpus) + " (a damaged row?)"};
}

}  // namespace vnsim::traces_detail
