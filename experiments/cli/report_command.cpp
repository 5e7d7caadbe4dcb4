// `vnsim report RESULTS_DIR`: hands the sweep directory to the notebook
// builder (scripts/report/make_report.py), which needs Debian's python3 with
// nbformat, nbconvert, pandas and matplotlib (scripts/setup installs them).
#include "report_command.hpp"

#include <cstdlib>
#include <filesystem>

#include "args.hpp"
#include "notebook_runner.hpp"
#include "trace_options.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::cli {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

}  // namespace

const char* report_usage() {
  return "vnsim report RESULTS_DIR [--out DIR]  (default DIR: RESULTS_DIR/report)\n";
}

int run_report_command(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  const std::vector<std::string> positionals = take_positionals(argv, {"--out"});
  if (positionals.size() != 1)
    throw InputError("report: expected one RESULTS_DIR, usage: " + std::string(report_usage()));
  Args args(argv, {"--out"}, {});
  const std::filesystem::path results = positionals[0];
  if (!std::filesystem::is_regular_file(results / "results.csv"))
    throw InputError(results.string() + ": no results.csv here (run 'vnsim sweep' first)");
  const std::string out = args.get_or("--out", (results / "report").string());
  const std::string script = env_or("VNSIM_REPORT_SCRIPT", VNSIM_REPORT_SCRIPT);
  if (!std::filesystem::is_regular_file(script))
    throw InputError(script + ": report script not found (set VNSIM_REPORT_SCRIPT)");

  return run_notebook_builder(script, {results.string(), "--out", out});
}

}  // namespace vnsim::cli
