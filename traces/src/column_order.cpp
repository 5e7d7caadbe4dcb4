#include "column_order.hpp"

#include "csv_header.hpp"
#include "line_reader.hpp"
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

class FixedLayoutParser : public LineParser {
 public:
  FixedLayoutParser(const FixedLayoutCsv& format, std::optional<ColumnOrder> order)
      : format_(format), order_(std::move(order)) {}

  JobSpec parse(std::string_view line, long line_number) const override {
    return order_ ? format_.parse_row(order_->canonical_row(line), line_number)
                  : format_.parse_row(line, line_number);
  }

 private:
  const FixedLayoutCsv& format_;
  std::optional<ColumnOrder> order_;  // set when the header is not the canonical one
};

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

FirstLineMatch claim_header(const FixedLayoutCsv& format, std::string_view line) {
  if (line == format.header) return FirstLineMatch::Yes;
  return has_columns_of(line, format.header, format.optional_fill) ? FirstLineMatch::Fallback
                                                                   : FirstLineMatch::No;
}

std::unique_ptr<LineParser> make_fixed_layout_parser(const FixedLayoutCsv& format,
                                                     std::string_view header_line) {
  if (header_line == format.header) return std::make_unique<FixedLayoutParser>(format, std::nullopt);
  try {
    return std::make_unique<FixedLayoutParser>(format,
                                               ColumnOrder(header_line, format.header, format.optional_fill));
  } catch (const RowError& e) {
    throw RowError{"header '" + shortened(std::string(header_line)) + "' is not the " + format.name +
                   " header '" + std::string(format.header) + "': " + e.reason};
  }
}

}  // namespace vnsim::traces_detail
