#pragma once
// Typed reads of one CSV field that throw RowError naming the column and the
// offending text, shared by the readers of docs/TRACES.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// Quoted excerpt of a field for messages, cut at 80 characters.
std::string quoted(std::string_view field);

}  // namespace vnsim::traces_detail
