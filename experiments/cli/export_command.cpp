// `vnsim export OUT_DIR --format batsim|chrome [--out FILE]`: another tool's
// view of a replay's outputs (docs/OUTPUTS.md, "vnsim export").
#include "export_command.hpp"

#include <cstdio>
#include <fstream>
#include <optional>

#include "args.hpp"
#include "export_views.hpp"
#include "trace_options.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/staged_file.hpp"

namespace vnsim::cli {

const char* export_usage() {
  return "vnsim export OUT_DIR --format batsim|chrome [--out FILE]   a replay's outputs for other tools:\n"
         "             batsim: jobs.csv with Batsim's columns; chrome: allocations.csv as a Chrome\n"
         "             trace-event JSON (chrome://tracing, Perfetto); stdout without --out\n";
}

int run_export_command(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  const std::vector<std::string> positionals = take_positionals(argv, {"--format", "--out"});
  if (positionals.size() != 1)
    throw InputError("export: expected one OUT_DIR, usage: " + std::string(export_usage()));
  Args args(argv, {"--format", "--out"}, {});
  const std::string format = args.require("--format");
  if (format != "batsim" && format != "chrome")
    throw InputError("--format: expected batsim or chrome, got '" + format + "'");
  const std::filesystem::path dir = positionals[0];
  if (!std::filesystem::is_directory(dir)) throw InputError(dir.string() + ": not a folder");
  std::optional<StagedFile> staged;  // checked before the work, written after it
  if (auto out = args.get("--out")) staged.emplace(*out);
  const std::string text = format == "batsim" ? batsim_jobs_csv(dir) : chrome_trace_json(dir);
  if (!staged) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  }
  {
    std::ofstream f(staged->path(), std::ios::binary);
    f << text;
    f.close();
    if (!f) throw InputError(staged->final_path().string() + ": cannot write");
  }
  staged->commit();
  return 0;
}

}  // namespace vnsim::cli
