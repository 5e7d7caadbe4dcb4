// `vnsim trace`: inspect, convert, generate and cluster (docs/TRACES.md,
// "Tools"). Format-specific work stays in read_trace: these tools only see
// JobSpecs, so they work with every format it reads.
#include "trace_command.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "args.hpp"
#include "trace_options.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/staged_file.hpp"
#include "vnsim/traces/cluster_from_inventory.hpp"
#include "vnsim/traces/readers.hpp"
#include "vnsim/traces/synthetic_traces.hpp"
#include "vnsim/traces/trace_stats.hpp"
#include "vnsim/traces/trace_writers.hpp"

namespace vnsim::cli {
namespace {

constexpr std::size_t kIssuesPrinted = 20;

BadRowPolicy bad_row_policy(const Args& args) {
  const std::string text = args.get_or("--bad-rows", "skip");
  if (text != "skip" && text != "fail")
    throw InputError("--bad-rows: expected skip or fail, got '" + text + "'");
  return text == "skip" ? BadRowPolicy::Skip : BadRowPolicy::Fail;
}

std::string one_positional(std::vector<std::string>& argv, const std::set<std::string>& flags,
                           const char* what) {
  const auto pos = take_positionals(argv, flags);
  if (pos.size() != 1)
    throw InputError(std::string("vnsim trace ") + what + ": expected exactly one input file, got " +
                     std::to_string(pos.size()) + " (see 'vnsim help')");
  return pos[0];
}

void print_issues(const std::vector<TraceIssue>& issues, const char* verb) {
  for (std::size_t i = 0; i < issues.size() && i < kIssuesPrinted; ++i)
    std::cerr << verb << " " << issues[i].message() << "\n";
  if (issues.size() > kIssuesPrinted) std::cerr << verb << " " << issues.size() - kIssuesPrinted << " more\n";
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw InputError(path + ": cannot write");
}

bool is_inventory(const std::string& file, const std::string& format) {
  const auto names = inventory_format_names();
  if (!format.empty()) return std::find(names.begin(), names.end(), format) != names.end();
  try {
    detect_inventory_format(file);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Machine lists come with the traces but hold machines, not jobs: inspect
// summarises the cluster they describe (what `trace cluster` would build).
int inspect_inventory(const std::string& file, const std::string& format, bool json) {
  InventoryOptions options;
  options.format = format;
  const InventoryCluster inv = cluster_from_inventory(file, options);
  std::map<int, long> nodes_by_gpus;
  long nodes = 0;
  for (const auto& rack : inv.spec.racks)
    for (const auto& node : rack.nodes) {
      ++nodes_by_gpus[static_cast<int>(node.gpu_types.size())];
      ++nodes;
    }
  if (json) {
    nlohmann::ordered_json j;
    j["file"] = file;
    j["format"] = inv.format;
    j["machines"] = nodes;
    j["racks"] = inv.spec.racks.size();
    j["left_out_rows"] = inv.left_out.size();
    for (const auto& [gpus, count] : nodes_by_gpus) j["machines_by_gpus"][std::to_string(gpus)] = count;
    for (const auto& [type, count] : inv.gpus_by_type) j["gpus_by_type"][type] = count;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("machine inventory %s (format %s; not a job trace)\n", file.c_str(), inv.format.c_str());
    long gpus_total = 0;
    for (const auto& [type, count] : inv.gpus_by_type) gpus_total += count;
    std::printf(
        "  machines with GPUs    %ld\n  GPUs                  %ld\n  racks                 %zu (%d machines "
        "per rack)\n"
        "  rows left out         %zu\n",
        nodes, gpus_total, inv.spec.racks.size(), options.nodes_per_rack, inv.left_out.size());
    std::printf("machines by GPUs per machine:\n");
    for (const auto& [gpus, count] : nodes_by_gpus) std::printf("  %-21d %ld\n", gpus, count);
    std::printf("GPUs by type:\n");
    for (const auto& [type, count] : inv.gpus_by_type) std::printf("  %-21s %ld\n", type.c_str(), count);
    std::printf("build a cluster spec from it: vnsim trace cluster --from %s --out SPEC.json\n",
                file.c_str());
  }
  print_issues(inv.left_out, "left out");
  return 0;
}

int inspect(std::vector<std::string> argv) {
  const std::set<std::string> flags = {"--format", "--bad-rows"};
  const std::string file = one_positional(argv, flags, "inspect");
  Args args(argv, flags, {"--json"});
  if (is_inventory(file, args.get_or("--format", "")))
    return inspect_inventory(file, args.get_or("--format", ""), args.has("--json"));
  const TraceReadResult read = read_trace(file, args.get_or("--format", ""), bad_row_policy(args));
  const TraceStats stats = compute_trace_stats(read, file);
  std::fputs((args.has("--json") ? trace_stats_json(stats) : trace_stats_text(stats)).c_str(), stdout);
  print_issues(read.skipped, "skipped");
  return 0;
}

int convert(std::vector<std::string> argv) {
  std::set<std::string> flags = {"--format", "--to",      "--out",    "--bad-rows",
                                 "--seed",   "--cluster", "--skipped"};
  flags.insert(trace_option_flags().begin(), trace_option_flags().end());
  auto pos = take_positionals(argv, flags);
  Args args(argv, flags, {"--quiet"});
  if (pos.empty() || pos.size() > 2 || (pos.size() == 2) == args.get("--out").has_value())
    throw InputError("vnsim trace convert: expected IN and OUT (OUT as a second argument or --out)");
  const std::string in = pos[0];
  const std::string out = pos.size() == 2 ? pos[1] : *args.get("--out");
  const std::string to = args.require("--to");
  if (to != "jsonl" && to != "pollux-philly")
    throw InputError("--to: expected jsonl or pollux-philly, got '" + to + "'");
  const auto seed = static_cast<std::uint64_t>(parse_integer("--seed", args.get_or("--seed", "1"), 0));
  const JobPreparation prep = job_preparation_from(args, seed);
  // Written under temporary names and renamed once all is written, so a
  // failed or killed conversion leaves no partial OUT and an earlier one whole.
  StagedFile staged_out(out);
  std::optional<StagedFile> staged_skipped;
  if (auto path = args.get("--skipped")) staged_skipped.emplace(*path);

  TraceReadResult read = read_trace(in, args.get_or("--format", ""), bad_row_policy(args));
  std::vector<TraceIssue> skipped = std::move(read.skipped);
  const std::size_t bad_rows = skipped.size();
  std::optional<Cluster> cluster;
  if (auto c = args.get("--cluster")) cluster.emplace(load_cluster_spec(*c));
  prepare_jobs(read.jobs, skipped, in, prep, cluster ? &*cluster : nullptr);
  const std::size_t removed = skipped.size() - bad_rows;
  std::size_t not_writable = 0;
  if (to == "jsonl") {
    write_jsonl(staged_out.path().string(), read.jobs);
  } else {
    auto not_written = write_pollux_philly(staged_out.path().string(), read.jobs);
    not_writable = not_written.size();
    skipped.insert(skipped.end(), not_written.begin(), not_written.end());
  }
  if (staged_skipped) {
    write_text(staged_skipped->path().string(), skipped_rows_csv(skipped));
    staged_skipped->commit();
  }
  staged_out.commit();
  if (!args.has("--quiet")) {
    print_issues(skipped, "skipped");
    std::printf(
        "%s (%s) -> %s (%s): %zu jobs written, %zu bad rows, %zu jobs removed by filters or rules, %zu not "
        "writable\n",
        in.c_str(), read.format.c_str(), out.c_str(), to.c_str(), read.jobs.size() - not_writable, bad_rows,
        removed, not_writable);
  }
  return 0;
}

int generate(std::vector<std::string> argv) {
  Args args(argv, {"--kind", "--jobs", "--seed", "--out", "--rate", "--diurnal-amplitude", "--peak-hour"},
            {});
  const SyntheticProfile& profile = synthetic_profile(args.require("--kind"));
  const auto n = static_cast<std::size_t>(parse_integer("--jobs", args.require("--jobs"), 1));
  const auto seed = static_cast<std::uint64_t>(parse_integer("--seed", args.get_or("--seed", "1"), 0));
  ArrivalProcess arrivals{.jobs_per_hour = profile.jobs_per_hour};
  if (auto v = args.get("--rate")) arrivals.jobs_per_hour = parse_number("--rate", *v);
  if (auto v = args.get("--diurnal-amplitude"))
    arrivals.diurnal_amplitude = parse_number("--diurnal-amplitude", *v);
  if (auto v = args.get("--peak-hour")) arrivals.peak_hour = parse_number("--peak-hour", *v);
  const std::string out = args.require("--out");
  // Written under a temporary name and renamed at the end, so that a killed
  // run (a million jobs take a while) leaves no complete-looking file.
  StagedFile staged(out);
  write_jsonl(staged.path().string(), draw_synthetic_jobs(profile, n, arrivals, seed));
  staged.commit();
  std::printf("wrote %s: %zu jobs of kind %s, seed %llu, %.3f jobs/h%s\n", out.c_str(), n,
              profile.name.c_str(), static_cast<unsigned long long>(seed), arrivals.jobs_per_hour,
              arrivals.diurnal_amplitude > 0 ? " (diurnal)" : " (Poisson)");
  return 0;
}

int cluster(std::vector<std::string> argv) {
  Args args(argv, {"--from", "--format", "--out", "--name", "--gpu-map", "--nodes-per-rack"}, {});
  InventoryOptions options;
  options.format = args.get_or("--format", "");
  options.name = args.get_or("--name", "");
  if (auto v = args.get("--gpu-map")) options.gpu_map = parse_gpu_map(*v);
  if (auto v = args.get("--nodes-per-rack"))
    options.nodes_per_rack = static_cast<int>(parse_integer("--nodes-per-rack", *v, 1));
  const std::string from = args.require("--from");
  const std::string out = args.require("--out");
  StagedFile staged(out);  // checked before the work, renamed into place after it
  const InventoryCluster built = cluster_from_inventory(from, options);
  write_text(staged.path().string(), built.json);
  staged.commit();
  print_issues(built.left_out, "left out");
  long gpus = 0;
  std::string types;
  for (const auto& [type, n] : built.gpus_by_type) {
    gpus += n;
    types += " " + type + ":" + std::to_string(n);
  }
  std::size_t nodes = 0;
  for (const auto& r : built.spec.racks) nodes += r.nodes.size();
  std::printf("wrote %s (%s): %zu racks, %zu nodes, %ld GPUs (%s), %zu rows left out\n", out.c_str(),
              built.format.c_str(), built.spec.racks.size(), nodes, gpus, types.c_str() + 1,
              built.left_out.size());
  return 0;
}

}  // namespace

const char* trace_usage() {
  // The --format names come from the format registry, so a new trace format
  // is listed without an edit here.
  static const std::string usage = [] {
    std::string formats;
    for (const std::string& n : trace_format_names()) formats += (formats.empty() ? "" : "|") + n;
    return "vnsim trace formats [--markdown]   the trace formats F of --format (" + formats +
           "),\n"
           "             how each is detected\n"
           "  vnsim trace inspect FILE [--format F] [--json] [--bad-rows skip|fail]\n"
           "  vnsim trace convert IN [--format F] --to jsonl|pollux-philly OUT [--seed N] [--cluster C]\n"
           "             [--skipped FILE.csv] [--quiet] [filters] [construction]\n"
           "  vnsim trace generate --kind philly|helios|pai|openb --jobs N [--seed S] --out FILE.jsonl\n"
           "             [--rate JOBS_PER_HOUR] [--diurnal-amplitude A] [--peak-hour H]\n"
           "  vnsim trace cluster --from FILE [--format philly-machines|pai-machines|openb-nodes] --out "
           "SPEC.json\n"
           "             [--name N] [--gpu-map NAME=TYPE,...] [--nodes-per-rack K]\n";
  }();
  return usage.c_str();
}

int run_trace_command(const std::vector<std::string>& argv) {
  if (argv.empty())
    throw InputError(
        "vnsim trace: expected formats, inspect, convert, generate or cluster (see 'vnsim help')");
  const std::string sub = argv[0];
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  if (sub == "formats") return run_trace_formats(rest);
  if (sub == "inspect") return inspect(rest);
  if (sub == "convert") return convert(rest);
  if (sub == "generate") return generate(rest);
  if (sub == "cluster") return cluster(rest);
  throw InputError("vnsim trace: unknown sub-command '" + sub +
                   "' (expected formats, inspect, convert, generate or cluster)");
}

}  // namespace vnsim::cli
