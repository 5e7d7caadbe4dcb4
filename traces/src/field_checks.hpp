#pragma once
// Typed reads of one CSV field that throw RowError naming the column and the
// offending text, shared by the readers of docs/TRACES.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vnsim/core/job_spec.hpp"

namespace vnsim::traces_detail {

// Splits on `separator` and requires exactly `count` fields (or at least
// `count` when `extra_allowed`).
std::vector<std::string_view> split_fields(std::string_view line, char separator, std::size_t count,
                                           bool extra_allowed = false);

double number_at_least(std::string_view field, const std::string& column, double min);
std::int64_t integer_in(std::string_view field, const std::string& column, std::int64_t min,
                        std::int64_t max);
// Empty (after trimming) gives nullopt; anything else must be a number >= min.
std::optional<double> optional_number(std::string_view field, const std::string& column, double min);

// Limits past which a parsed value is a damaged row, not a real job: a run
// longer than ten years (no GPU cluster trace spans that long) or more GPUs
// than the largest published cluster by two orders of magnitude.
inline constexpr double kMaxPlausibleDurationS = 10 * 365.25 * 86400;
inline constexpr int kMaxPlausibleGpus = 1'000'000;
// Throws RowError when a job's duration or GPU count is past those limits.
void check_plausible(const JobSpec& job);

// Quoted excerpt of a field for messages, cut at 80 characters.
std::string quoted(std::string_view field);

}  // namespace vnsim::traces_detail
