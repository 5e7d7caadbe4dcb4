#pragma once
// Strict parsing of CSV fields: a field is a number only if all of it is one
// (no "12abc", no "nan"), so malformed rows are reported instead of being
// read as something else.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vnsim::traces_detail {

// Plain comma split; the trace formats read here never quote fields.
std::vector<std::string_view> split_commas(std::string_view line);
std::string_view trim(std::string_view s);

std::optional<double> parse_finite_double(std::string_view field);
std::optional<std::int64_t> parse_integer(std::string_view field);

// "YYYY-MM-DD HH:MM:SS" as seconds since 1970-01-01 00:00:00 of the same
// naive clock: no time zone, no DST, no locale.
std::optional<std::int64_t> parse_naive_timestamp(std::string_view text);
// Days from 1970-01-01 to a proleptic Gregorian date.
std::int64_t days_from_civil(std::int64_t year, int month, int day);

}  // namespace vnsim::traces_detail
