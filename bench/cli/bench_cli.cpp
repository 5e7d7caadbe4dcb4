#include "cli/bench_cli.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "vnsim/core/error.hpp"

namespace vnsim::bench {

namespace {

int user_error(const std::string& program, const std::string& reason, const std::string& usage) {
  std::fprintf(stderr, "%s: %s\n%s\n", program.c_str(), reason.c_str(), usage.c_str());
  return 2;
}

unsigned long long parse_unsigned(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE)
    throw UsageError(what + " must be a non-negative integer, got '" + text + "'");
  return value;
}

}  // namespace

int run_bench_cli(int argc, char** argv, const std::string& usage,
                  const std::function<int(std::vector<std::string>& args)>& body) {
  const std::string program = std::filesystem::path(argc > 0 ? argv[0] : "bench").filename().string();
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::printf("%s\n", usage.c_str());
      return 0;
    }
  try {
    return body(args);
  } catch (const UsageError& e) {
    return user_error(program, e.what(), usage);
  } catch (const InputError& e) {
    return user_error(program, e.what(), usage);
  } catch (const std::invalid_argument& e) {
    return user_error(program, e.what(), usage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 1;
  }
}

std::size_t parse_count(const std::string& text, const std::string& what) {
  const unsigned long long value = parse_unsigned(text, what);
  if (value > std::numeric_limits<std::size_t>::max()) throw UsageError(what + " is too large: " + text);
  return static_cast<std::size_t>(value);
}

std::uint64_t parse_seed(const std::string& text, const std::string& what) {
  return static_cast<std::uint64_t>(parse_unsigned(text, what));
}

double parse_number(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
    throw UsageError(what + " must be a number, got '" + text + "'");
  return value;
}

void expect_at_most(const std::vector<std::string>& args, std::size_t most) {
  for (const std::string& a : args)
    if (a.rfind("--", 0) == 0) throw UsageError("unknown option " + a);
  if (args.size() > most)
    throw UsageError("too many arguments: expected at most " + std::to_string(most) + ", got " +
                     std::to_string(args.size()));
}

}  // namespace vnsim::bench
