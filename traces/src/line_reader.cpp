#include "line_reader.hpp"

#include <filesystem>

#include "vnsim/core/error.hpp"

namespace vnsim::traces_detail {

LineReader::LineReader(const std::string& path) : path_(path) {
  // ifstream happily "opens" a directory on Linux and then reads nothing.
  if (std::filesystem::is_directory(path)) throw InputError(path + ": is a directory, not a trace file");
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(path + ": cannot open trace file");
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) {
    if (in_.bad()) throw InputError(path_ + ":" + std::to_string(line_number_ + 1) + ": read error");
    return false;
  }
  ++line_number_;
  unterminated_ = in_.eof();  // getline stopped at end of file, not at '\n'
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line_number_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  return true;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace vnsim::traces_detail

namespace vnsim::traces_detail {

std::string first_content_line(LineReader& reader) {
  std::string line;
  while (reader.next(line))
    if (!is_blank(line)) return line;
  throw InputError(reader.path() + ": empty trace (no header or data line)");
}

std::string shortened(const std::string& line) {
  return line.size() <= 80 ? line : line.substr(0, 77) + "...";
}

}  // namespace vnsim::traces_detail
