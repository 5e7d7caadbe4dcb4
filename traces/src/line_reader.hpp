#pragma once
// Streams a text file one line at a time, counting lines from 1 and removing
// the '\r' of CRLF endings, so readers see identical lines for LF and CRLF
// copies of a trace.
#include <fstream>
#include <string>
#include <string_view>

namespace vnsim::traces_detail {

class LineReader {
 public:
  // Throws InputError naming the file when it cannot be opened.
  explicit LineReader(const std::string& path);

  // False at end of file. The UTF-8 byte-order mark of line 1 is removed.
  bool next(std::string& line);
  long line_number() const { return line_number_; }
  // True when the line last returned ended at end of file without '\n': a
  // file cut while being written or copied ends that way (docs/TRACES.md,
  // "Bad rows").
  bool last_line_unterminated() const { return unterminated_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  long line_number_ = 0;
  bool unterminated_ = false;
};

bool is_blank(std::string_view line);

// Advances to the first non-blank line; throws InputError when the file has
// none.
std::string first_content_line(LineReader& reader);

// A line cut to 80 characters for an error message.
std::string shortened(const std::string& line);

}  // namespace vnsim::traces_detail
