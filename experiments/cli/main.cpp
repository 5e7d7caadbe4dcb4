// vnsim command-line entry point: dispatches sub-commands and turns every
// input error into one clear line on stderr and exit code 2.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench_collective_command.hpp"
#include "calibrate_command.hpp"
#include "check_command.hpp"
#include "export_command.hpp"
#include "policies_command.hpp"
#include "replay_command.hpp"
#include "report_command.hpp"
#include "sweep_command.hpp"
#include "trace_command.hpp"
#include "trace_options.hpp"
#include "validate_command.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sim/version.hpp"

namespace {

void print_help() {
  std::printf("vnsim %s: discrete-event simulator of GPU clusters for deep-learning training\n\n",
              VNSIM_VERSION);
  std::printf("usage:\n  %s  %s  %s  %s  vnsim version\n  vnsim help\n\n", vnsim::cli::replay_usage(),
              vnsim::cli::trace_usage(), vnsim::cli::sweep_usage(), vnsim::cli::report_usage());
  std::printf("  %s", vnsim::cli::bench_collective_usage());
  std::printf("  %s", vnsim::cli::policies_usage());
  std::printf("  %s", vnsim::cli::validate_usage());
  std::printf("  %s", vnsim::cli::check_usage());
  std::printf("  %s", vnsim::cli::export_usage());
  std::printf("  %s", vnsim::cli::calibrate_usage());
  std::printf("%s\n", vnsim::cli::trace_option_usage());
  std::printf("cluster presets:");
  for (const auto& p : vnsim::cluster_preset_names()) std::printf(" %s", p.c_str());
  std::printf("\npolicies:");
  for (const auto& p : vnsim::policy_names()) std::printf(" %s", p.c_str());
  std::printf("\ndocs: docs/CLUSTER_SPEC.md, docs/TRACES.md, docs/OUTPUTS.md, docs/EXPERIMENTS.md\n");
}

// The usage of `command`, or nullptr for an unknown one.
const char* command_usage(const std::string& command) {
  using namespace vnsim::cli;
  if (command == "replay") return replay_usage();
  if (command == "trace") return trace_usage();
  if (command == "sweep") return sweep_usage();
  if (command == "report") return report_usage();
  if (command == "policies") return policies_usage();
  if (command == "validate") return validate_usage();
  if (command == "bench-collective") return bench_collective_usage();
  if (command == "check") return check_usage();
  if (command == "export") return export_usage();
  if (command == "version") return "vnsim version\n";
  return nullptr;
}

// `vnsim CMD ... --help` (anywhere after the command) prints that command's
// usage on stdout and exits 0, before any other option is checked.
bool wants_help(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (const char* usage = command_usage(command); usage != nullptr && wants_help(args)) {
    std::printf("usage: %s", usage);
    if (command == "replay" || command == "trace") std::printf("%s", vnsim::cli::trace_option_usage());
    std::printf(
        "exit codes: 0 success, 2 user error (bad option or input), 1 internal error; "
        "docs/OUTPUTS.md\n");
    return 0;
  }
  try {
    if (command == "version" || command == "--version") {
      std::printf("vnsim %s (%s)\n", VNSIM_VERSION, vnsim::simgrid_version().c_str());
      return 0;
    }
    if (command == "replay") return vnsim::cli::run_replay_command(args);
    if (command == "trace") return vnsim::cli::run_trace_command(args);
    if (command == "sweep") return vnsim::cli::run_sweep_command(args);
    if (command == "report") return vnsim::cli::run_report_command(args);
    if (command == "policies") return vnsim::cli::run_policies_command(args);
    if (command == "validate") return vnsim::cli::run_validate_command(args);
    if (command == "calibrate") return vnsim::cli::run_calibrate_command(args);
    if (command == "bench-collective") return vnsim::cli::run_bench_collective_command(args);
    if (command == "check") return vnsim::cli::run_check_command(args);
    if (command == "export") return vnsim::cli::run_export_command(args);
    std::fprintf(stderr, "vnsim: unknown command '%s' (see 'vnsim help')\n",
                 vnsim::cli::printable(command).c_str());
    return 2;
  } catch (const vnsim::InputError& e) {
    std::fprintf(stderr, "vnsim: error: %s\n", vnsim::cli::printable(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vnsim: internal error: %s\n", vnsim::cli::printable(e.what()).c_str());
    return 1;
  }
}
