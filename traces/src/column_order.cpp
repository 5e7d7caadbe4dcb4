#include "column_order.hpp"

#include "csv_header.hpp"
#include "row_parsers.hpp"
#include "text_fields.hpp"

namespace vnsim::traces_detail {
namespace {

const std::string* fill_of(const std::vector<std::pair<std::string, std::string>>& fills,
                           std::string_view name) {
  for (const auto& [column, text] : fills)
    if (column == name) return &text;
  return nullptr;
}

}  // namespace

ColumnOrder::ColumnOrder(std::string_view header_line, std::string_view canonical,
                         const std::vector<std::pair<std::string, std::string>>& optional_fill) {
  const CsvHeader header(header_line);
  width_ = header.size();
  std::string missing;
  for (const auto name : split_commas(canonical)) {
    source_.push_back(header.index(name));
    fill_.emplace_back();
    if (source_.back()) continue;
    if (const std::string* text = fill_of(optional_fill, name)) {
      fill_.back() = *text;
    } else {
      missing += (missing.empty() ? "" : ", ") + std::string(name);
    }
  }
  if (!missing.empty())
    throw RowError{"header '" + std::string(header_line.substr(0, 80)) + "' lacks column(s) " + missing +
                   " (expected '" + std::string(canonical) + "', in any order)"};
}

std::string ColumnOrder::canonical_row(std::string_view row) const {
  const auto fields = split_commas(row);
  if (fields.size() != width_)
    throw RowError{"expected " + std::to_string(width_) +
                   " comma-separated fields (as in the header), found " + std::to_string(fields.size())};
  std::string out;
  for (std::size_t i = 0; i < source_.size(); ++i) {
    if (i > 0) out += ',';
    out += source_[i] ? std::string(fields[*source_[i]]) : fill_[i];
  }
  return out;
}

bool has_columns_of(std::string_view header_line, std::string_view canonical,
                    const std::vector<std::pair<std::string, std::string>>& optional_fill) {
  const CsvHeader header(header_line);
  for (const auto name : split_commas(canonical))
    if (!header.has(name) && fill_of(optional_fill, name) == nullptr) return false;
  return true;
}

}  // namespace vnsim::traces_detail
