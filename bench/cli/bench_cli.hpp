// The command-line contract every bench program keeps, as `vnsim` does
// (docs/OUTPUTS.md, "Exit codes"): `--help` or `-h` anywhere prints the usage
// on stdout and exits 0; a user error (a missing or unknown argument, a
// number that does not parse, an unknown policy or cluster) prints the reason
// and the usage on stderr and exits 2; anything else that fails exits 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vnsim::bench {

// A bench's arguments are wrong: exit 2 with the reason and the usage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `body` with the arguments after the program name and maps its end to
// the exit codes above. `usage` is the full usage text, without a trailing
// newline.
int run_bench_cli(int argc, char** argv, const std::string& usage,
                  const std::function<int(std::vector<std::string>& args)>& body);

// Strict conversions of a positional argument named `what`: the whole text
// must be a number in range, else UsageError.
std::size_t parse_count(const std::string& text, const std::string& what);
std::uint64_t parse_seed(const std::string& text, const std::string& what);
double parse_number(const std::string& text, const std::string& what);

// Throws UsageError when more than `most` positional arguments are left or
// one of them looks like an option (starts with "--").
void expect_at_most(const std::vector<std::string>& args, std::size_t most);

}  // namespace vnsim::bench
