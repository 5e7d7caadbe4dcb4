#pragma once
// Column lookup by header name, for CSV formats whose column order varies
// between releases (Helios and Acme) or which may carry extra columns.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vnsim::traces_detail {

class CsvHeader {
 public:
  // Names are trimmed; a later duplicate name does not replace the first.
  explicit CsvHeader(std::string_view header_line);

  bool has(std::string_view name) const { return index_.count(std::string(name)) > 0; }
  std::optional<std::size_t> index(std::string_view name) const;
  std::size_t size() const { return size_; }
  // Names in `required` that the header lacks, in the order given.
  std::vector<std::string> missing(const std::vector<std::string>& required) const;

 private:
  std::map<std::string, std::size_t> index_;
  std::size_t size_ = 0;
};

}  // namespace vnsim::traces_detail
