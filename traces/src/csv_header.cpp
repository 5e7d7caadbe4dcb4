#include "csv_header.hpp"

#include "text_fields.hpp"

namespace vnsim::traces_detail {

CsvHeader::CsvHeader(std::string_view header_line) {
  const auto names = split_commas(header_line);
  size_ = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) index_.emplace(std::string(trim(names[i])), i);
}

std::optional<std::size_t> CsvHeader::index(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> CsvHeader::missing(const std::vector<std::string>& required) const {
  std::vector<std::string> out;
  for (const auto& name : required)
    if (!has(name)) out.push_back(name);
  return out;
}

}  // namespace vnsim::traces_detail
