#include "pollux_fields.hpp"

#include <limits>

#include "row_parsers.hpp"
#include "text_fields.hpp"

namespace vnsim::traces_detail {

std::vector<std::string_view> expect_fields(std::string_view line, std::size_t count) {
  auto fields = split_commas(line);
  if (fields.size() != count)
    throw RowError{"expected " + std::to_string(count) + " comma-separated fields, found " +
                   std::to_string(fields.size())};
  return fields;
}

double non_negative_number(std::string_view field, const char* column) {
  const auto v = parse_finite_double(field);
  if (!v) throw RowError{std::string(column) + " '" + std::string(trim(field)) + "' is not a number"};
  if (*v < 0) throw RowError{std::string(column) + " " + std::string(trim(field)) + " is negative"};
  return *v;
}

int positive_int(std::string_view field, const char* column) {
  const auto v = parse_integer(field);
  if (!v) throw RowError{std::string(column) + " '" + std::string(trim(field)) + "' is not an integer"};
  if (*v < 1) throw RowError{std::string(column) + " " + std::to_string(*v) + " is < 1"};
  if (*v > std::numeric_limits<int>::max())
    throw RowError{std::string(column) + " " + std::to_string(*v) + " is too large"};
  return static_cast<int>(*v);
}

}  // namespace vnsim::traces_detail
