// `vnsim trace formats [--markdown]`: the registered trace formats, read from
// the registry (trace_formats()), so a new format is listed without an edit
// here. --markdown prints the table between the generated markers of
// docs/TRACES.md.
#include <cstdio>

#include "trace_command.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim::cli {
namespace {

void print_text() {
  std::size_t width = 0;
  for (const auto& f : trace_formats()) width = std::max(width, f.name.size());
  for (const auto& f : trace_formats()) {
    std::printf("%-*s  %s\n", static_cast<int>(width), f.name.c_str(), f.trace.c_str());
    std::printf("%-*s  detected by: %s\n", static_cast<int>(width), "", f.detected_by.c_str());
  }
  std::printf(
      "Give one with --format NAME, or let the path and first non-blank line decide (docs/TRACES.md).\n");
}

void print_markdown() {
  std::printf("| format | trace | detected by: the path or first non-blank line |\n|---|---|---|\n");
  for (const auto& f : trace_formats())
    std::printf("| [`%s`](#%s) | %s | %s |\n", f.name.c_str(), f.section.c_str(), f.trace.c_str(),
                f.detected_by.c_str());
}

}  // namespace

int run_trace_formats(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    print_text();
  } else if (argv.size() == 1 && argv[0] == "--markdown") {
    print_markdown();
  } else {
    throw InputError("vnsim trace formats: expected no argument or --markdown");
  }
  return 0;
}

}  // namespace vnsim::cli
