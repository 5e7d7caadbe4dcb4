// Parsing of the trace filters and construction options (docs/TRACES.md,
// "Filters" and "Construction rules") for replay and convert.
#include "trace_options.hpp"

#include <charconv>
#include <cmath>

#include "vnsim/core/error.hpp"
#include "vnsim/core/job_record.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim::cli {
namespace {

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(item);
      item.clear();
    }
  }
  return out;
}

}  // namespace

const std::set<std::string>& trace_option_flags() {
  static const std::set<std::string> flags = {
      "--from-s",   "--to-s",          "--vc",         "--user",        "--status",     "--min-gpus",
      "--max-gpus", "--arrival-scale", "--load-scale", "--model-rules", "--failed-jobs"};
  return flags;
}

const char* trace_option_usage() {
  return "  filters: [--from-s S] [--to-s S] [--vc A,B] [--user A,B] [--status "
         "keep|drop-failed|drop-killed-failed]\n"
         "           [--min-gpus N] [--max-gpus N] [--arrival-scale X] [--load-scale X]\n"
         "  construction: [--model-rules FILE.json] [--failed-jobs run|drop]  (docs/TRACES.md)\n";
}

double parse_number(const std::string& flag, const std::string& text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    throw InputError("option " + flag + ": '" + text + "' is not a finite number");
  return v;
}

JobPreparation job_preparation_from(const Args& args, std::uint64_t seed) {
  JobPreparation prep;
  prep.seed = seed;
  TraceFilter& f = prep.filter;
  if (auto v = args.get("--from-s")) f.from_s = parse_number("--from-s", *v);
  if (auto v = args.get("--to-s")) f.to_s = parse_number("--to-s", *v);
  if (auto v = args.get("--vc")) f.vcs = comma_list(*v);
  if (auto v = args.get("--user")) f.users = comma_list(*v);
  if (auto v = args.get("--status")) f.status = status_filter_from_string(*v);
  if (auto v = args.get("--min-gpus")) f.min_gpus = static_cast<int>(parse_integer("--min-gpus", *v, 1));
  if (auto v = args.get("--max-gpus")) f.max_gpus = static_cast<int>(parse_integer("--max-gpus", *v, 1));
  if (auto v = args.get("--arrival-scale")) f.arrival_scale = parse_number("--arrival-scale", *v);
  if (auto v = args.get("--load-scale")) f.load_scale = parse_number("--load-scale", *v);
  check_trace_filter(f);
  if (auto v = args.get("--model-rules"))
    prep.model_rules = load_model_rules_file(*v, ModelCatalog::builtin());
  if (auto v = args.get("--failed-jobs")) prep.failed_jobs = failed_jobs_from_string(*v);
  return prep;
}

std::vector<std::string> take_positionals(std::vector<std::string>& argv,
                                          const std::set<std::string>& flags_with_values) {
  std::vector<std::string> positionals, rest;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (flags_with_values.count(argv[i]) && i + 1 < argv.size()) {
      rest.push_back(argv[i]);
      rest.push_back(argv[++i]);
    } else if (argv[i].rfind("--", 0) == 0) {
      rest.push_back(argv[i]);
    } else {
      positionals.push_back(argv[i]);
    }
  }
  argv = rest;
  return positionals;
}

std::string skipped_rows_csv(const std::vector<TraceIssue>& skipped) {
  std::string text = "file,line,reason,kind\n";
  for (const auto& s : skipped)
    text += csv_field(s.file, /*always=*/true) + "," + std::to_string(s.line) + "," +
            csv_field(s.reason, /*always=*/true) + "," + to_string(s.kind) + "\n";
  return text;
}

}  // namespace vnsim::cli
