#pragma once
// Fixed-layout CSV formats (pollux-philly, pollux-workload) read by header
// name: a header with the same names in another order, with extra columns,
// or without a column the reader does not use, is mapped back to the
// canonical layout row by row (docs/TRACES.md, "Column order").
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace_format.hpp"

namespace vnsim::traces_detail {

class ColumnOrder {
 public:
  // `canonical`: the format's header ("a,b,c"); `optional_fill`: for each
  // column the reader does not need, the text a row gets when the header
  // lacks it. Throws RowError naming the missing required columns.
  ColumnOrder(std::string_view header_line, std::string_view canonical,
              const std::vector<std::pair<std::string, std::string>>& optional_fill);
  // The row's fields in canonical order, joined by commas; throws RowError
  // when the row does not have one field per header column.
  std::string canonical_row(std::string_view row) const;

 private:
  std::vector<std::optional<std::size_t>> source_;  // per canonical column
  std::vector<std::string> fill_;                   // text when source_ is empty
  std::size_t width_ = 0;                           // fields in the file's header
};

// True when every required column of `canonical` is in the header, so the
// file is that format with its columns moved.
bool has_columns_of(std::string_view header_line, std::string_view canonical,
                    const std::vector<std::pair<std::string, std::string>>& optional_fill);

// A fixed-layout CSV format: its canonical header, the columns its reader
// does not need with the text a row gets without them, and its row parser.
struct FixedLayoutCsv {
  std::string name;
  std::string_view header;
  std::vector<std::pair<std::string, std::string>> optional_fill;
  JobSpec (*parse_row)(std::string_view row, long line_number);
};

// Yes for exactly the canonical header, Fallback for a header with its
// columns in another order, extended or missing an optional one.
FirstLineMatch claim_header(const FixedLayoutCsv& format, std::string_view line);
// The line parser of a file with this header (the canonical one or a
// reordered one); throws RowError naming the missing columns. `format` must
// outlive the parser.
std::unique_ptr<LineParser> make_fixed_layout_parser(const FixedLayoutCsv& format,
                                                     std::string_view header_line);

}  // namespace vnsim::traces_detail
