#include "json_array_splitter.hpp"

namespace vnsim::traces_detail {
namespace {

bool is_space(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

// Straight from the stream buffer: istream::get() builds a sentry per call,
// which dominates the time on a multi-gigabyte log.
int JsonArraySplitter::get() {
  const int c = in_.rdbuf()->sbumpc();
  if (c == std::char_traits<char>::eof()) return -1;
  if (c == '\n') ++line_;
  return c;
}

int JsonArraySplitter::peek() {
  const int c = in_.rdbuf()->sgetc();
  return c == std::char_traits<char>::eof() ? -1 : c;
}

bool JsonArraySplitter::open() {
  // A UTF-8 byte-order mark may precede the array.
  if (peek() == 0xEF) {
    get();
    if (get() != 0xBB || get() != 0xBF) return false;
  }
  int c = get();
  while (is_space(c)) c = get();
  return c == '[';
}

bool JsonArraySplitter::next(JsonElement& element) {
  element = JsonElement{};
  if (closed_) return false;
  int c = get();
  int commas = 0;
  while (is_space(c) || c == ',') {
    commas += c == ',' ? 1 : 0;
    c = get();
  }
  if (c == -1) return false;
  if (c == ']') {
    closed_ = true;
    return false;
  }
  element.start_line = line_;
  element.missing_separator = commas != (first_ ? 0 : 1);
  first_ = false;
  int depth = 0;
  bool in_string = false, escaped = false;
  while (true) {
    if (!element.oversized) {
      if (element.text.size() >= kMaxElementBytes) {
        element.oversized = true;
        std::string().swap(element.text);
      } else {
        element.text.push_back(static_cast<char>(c));
      }
    }
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) element.too_deep = true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    if (!in_string) {
      // An unbalanced closer ends the element; parsing its text reports it.
      if (depth < 0) return true;
      if (depth == 0) {
        // A closed object or array ends here; a scalar ends before a
        // separator, whitespace or the end of the input.
        if (c == '}' || c == ']') return true;
        const int after = peek();
        if (after == ',' || after == ']' || after == -1 || is_space(after)) return true;
      }
    }
    c = get();
    if (c == -1) {
      element.truncated = true;
      return true;
    }
  }
}

bool JsonArraySplitter::only_whitespace_after() {
  int c = get();
  while (is_space(c)) c = get();
  return c == -1;
}

}  // namespace vnsim::traces_detail
