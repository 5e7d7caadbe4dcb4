#pragma once
// A minimal "--flag value" parser: the CLI has few options, and a small
// explicit parser gives exact error messages without another dependency
// (docs/ARCHITECTURE.md, "Command line", says why it stays over CLI11).
// `--help`/`-h` never reach it: main() answers them per command first.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vnsim/core/error.hpp"

namespace vnsim::cli {

// `text` with control and non-ASCII bytes shown as \xNN, so an error message
// never sends raw binary to the terminal.
std::string printable(const std::string& text);

class Args {
 public:
  // `flags` take a value; `switches` do not. Anything else is an error.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& flags,
       const std::set<std::string>& switches) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
      const std::string& a = argv[i];
      if (switches.count(a)) {
        switches_.insert(a);
      } else if (flags.count(a)) {
        if (i + 1 >= argv.size()) throw InputError("option " + a + " needs a value");
        // A flag takes one value: a second one is a mistake (an edited
        // command line, a copied script), not a silent "last one wins".
        if (!values_.emplace(a, argv[++i]).second)
          throw InputError("option " + a + " given twice ('" + values_[a] + "' and '" + argv[i] + "')");
      } else {
        throw InputError("unknown option '" + printable(a) + "' (see --help)");
      }
    }
  }
  std::optional<std::string> get(const std::string& flag) const {
    auto it = values_.find(flag);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }
  std::string get_or(const std::string& flag, const std::string& fallback) const {
    return get(flag).value_or(fallback);
  }
  std::string require(const std::string& flag) const {
    auto v = get(flag);
    if (!v) throw InputError("missing required option " + flag);
    return *v;
  }
  bool has(const std::string& sw) const { return switches_.count(sw) > 0; }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
};

long long parse_integer(const std::string& flag, const std::string& text, long long min_value);

}  // namespace vnsim::cli
