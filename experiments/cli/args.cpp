#include "args.hpp"

#include <charconv>

namespace vnsim::cli {

long long parse_integer(const std::string& flag, const std::string& text, long long min_value) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw InputError("option " + flag + ": '" + text + "' is not an integer");
  if (v < min_value) throw InputError("option " + flag + ": must be >= " + std::to_string(min_value));
  return v;
}

}  // namespace vnsim::cli
