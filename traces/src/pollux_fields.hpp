#pragma once
// Field reads shared by the two Pollux CSV formats (pollux-philly,
// pollux-workload), with the messages those readers have always given.
#include <string>
#include <string_view>
#include <vector>

namespace vnsim::traces_detail {

// Exactly `count` comma-separated fields, or RowError.
std::vector<std::string_view> expect_fields(std::string_view line, std::size_t count);
double non_negative_number(std::string_view field, const char* column);
int positive_int(std::string_view field, const char* column);

}  // namespace vnsim::traces_detail
