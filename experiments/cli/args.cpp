#include "args.hpp"

#include <charconv>

namespace vnsim::cli {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when none.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t n = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (n == 0 || lead >= 0xf5 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string printable(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte >= 0x20 && byte < 0x7f) || byte == '\n' || byte == '\t') {
      out += text[i];
    } else if (const std::size_t n = byte >= 0x80 ? utf8_length(text, i) : 0; n > 0) {
      out.append(text, i, n);  // a file name in UTF-8 stays readable
      i += n - 1;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

long long parse_integer(const std::string& flag, const std::string& text, long long min_value) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw InputError("option " + flag + ": '" + text + "' is not an integer");
  if (v < min_value) throw InputError("option " + flag + ": must be >= " + std::to_string(min_value));
  return v;
}

}  // namespace vnsim::cli
