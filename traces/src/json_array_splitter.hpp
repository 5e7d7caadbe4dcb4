#pragma once
// Splits a top-level JSON array into the text of its elements, one at a
// time, so that a multi-gigabyte array (the raw Philly job log) is never held
// in memory whole. Each element is then parsed on its own.
#include <istream>
#include <string>

namespace vnsim::traces_detail {

struct JsonElement {
  std::string text;                // raw JSON text of the element (empty when oversized)
  long start_line = 0;             // line of its first character
  bool truncated = false;          // the input ended inside it
  bool oversized = false;          // larger than kMaxElementBytes; text dropped
  bool too_deep = false;           // nested deeper than kMaxDepth
  bool missing_separator = false;  // not preceded by exactly one ',' (or by '[')
};

class JsonArraySplitter {
 public:
  static constexpr std::size_t kMaxElementBytes = 64u << 20;
  static constexpr int kMaxDepth = 64;

  explicit JsonArraySplitter(std::istream& in) : in_(in) {}

  // Skips whitespace to the opening '['; false when the input has none.
  // Afterwards line() is the line of the '[' or of the offending character.
  bool open();
  // Next element; false after the closing ']' or at the end of the input
  // (closed() tells which).
  bool next(JsonElement& element);
  bool closed() const { return closed_; }
  // After the closing ']': true when only whitespace follows it.
  bool only_whitespace_after();
  long line() const { return line_; }

 private:
  int get();  // next byte or -1, counting lines
  int peek();

  std::istream& in_;
  long line_ = 1;
  bool closed_ = false;
  bool first_ = true;
};

}  // namespace vnsim::traces_detail
