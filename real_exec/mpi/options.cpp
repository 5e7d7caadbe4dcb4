#include "options.hpp"

#include <charconv>
#include <set>

#include "vnsim/core/error.hpp"

namespace vnsim::real_exec::mpi {
namespace {

double number(const std::string& flag, const std::string& v, double min) {
  double out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || !(out >= min))
    throw InputError(flag + ": expected a number >= " + std::to_string(min) + ", got '" + v + "'");
  return out;
}

long long integer(const std::string& flag, const std::string& v, long long min) {
  long long out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || out < min)
    throw InputError(flag + ": expected an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return out;
}

std::pair<std::string, std::string> split_at(const std::string& flag, const std::string& v, char sep) {
  const std::size_t at = v.rfind(sep);
  if (at == std::string::npos || at == 0 || at + 1 == v.size())
    throw InputError(flag + ": expected A" + std::string(1, sep) + "B, got '" + v + "'");
  return {v.substr(0, at), v.substr(at + 1)};
}

}  // namespace

const char* usage() {
  return "usage (under mpirun; rank 0 is the controller, ranks 1..N-1 the workers):\n"
         "  vnexec run --trace JOBS.jsonl --cluster SPEC.json|preset --out RUN_DIR\n"
         "             [--profile MODELS.json] [--noise NOISE.json] [--policy NAME] [--policy-param "
         "key=value]...\n"
         "             [--time-scale S] [--checkpoint-every K] [--inject-failure JOB_ID:STEP]...\n"
         "             [--probe-repetitions R] [--vc-quotas FILE|trace [--vc-borrow on|off]]\n"
         "             [--backend cpu|cuda] [--compute-scale FLOPS] [--gradient-fraction F] [--realtime "
         "PRIO]\n"
         "  vnexec run --resume RUN_DIR   (continue a run whose MPI job died, from its checkpoints)\n"
         "  vnexec calibrate --models m1,m2,... --out DIR [--repetitions R]\n"
         "             [--backend cpu|cuda] [--compute-scale FLOPS] [--gradient-fraction F] [--realtime "
         "PRIO]\n"
         "docs: docs/REAL_EXEC.md\n";
}

Options parse_options(const std::vector<std::string>& argv) {
  if (argv.empty()) throw InputError("no command (run or calibrate)");
  Options o;
  o.command = argv[0];
  if (o.command != "run" && o.command != "calibrate")
    throw InputError("unknown command '" + o.command + "' (run or calibrate)");
  const std::set<std::string> common = {"--backend", "--compute-scale", "--gradient-fraction", "--out",
                                        "--realtime"};
  const std::set<std::string> run = {
      "--trace",          "--cluster",      "--profile",           "--noise",
      "--policy",         "--policy-param", "--time-scale",        "--checkpoint-every",
      "--inject-failure", "--resume",       "--probe-repetitions", "--vc-quotas",
      "--vc-borrow"};
  const std::set<std::string> calibrate = {"--models", "--repetitions"};
  std::set<std::string> seen;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& flag = argv[i];
    const bool known = common.count(flag) || (o.command == "run" ? run.count(flag) : calibrate.count(flag));
    if (!known) throw InputError("unknown option '" + flag + "' for vnexec " + o.command);
    if (i + 1 >= argv.size()) throw InputError("option " + flag + " needs a value");
    const std::string& v = argv[++i];
    const bool repeatable = flag == "--policy-param" || flag == "--inject-failure";
    if (!repeatable && !seen.insert(flag).second) throw InputError("option " + flag + " given twice");
    if (flag == "--backend") {
      if (v != "cpu" && v != "cuda") throw InputError("--backend: expected cpu or cuda, got '" + v + "'");
      o.backend = v;
    } else if (flag == "--realtime") {
      o.realtime = static_cast<int>(integer(flag, v, 0));
      if (o.realtime > 98) throw InputError("--realtime: expected a priority of 0-98, got '" + v + "'");
    } else if (flag == "--compute-scale") {
      o.scale.flops_per_reference_second = number(flag, v, 0);
    } else if (flag == "--gradient-fraction") {
      o.scale.gradient_fraction = number(flag, v, 0);
    } else if (flag == "--out") {
      o.out = v;
    } else if (flag == "--resume") {
      o.resume = v;
    } else if (flag == "--trace") {
      o.trace = v;
    } else if (flag == "--cluster") {
      o.cluster = v;
    } else if (flag == "--profile") {
      o.profile = v;
    } else if (flag == "--noise") {
      o.noise = v;
    } else if (flag == "--vc-quotas") {
      o.vc_quotas = v;
    } else if (flag == "--vc-borrow") {
      if (v != "on" && v != "off") throw InputError("--vc-borrow: expected on or off, got '" + v + "'");
      o.vc_borrow = v == "on";
    } else if (flag == "--policy") {
      o.policy = v;
    } else if (flag == "--policy-param") {
      auto [k, val] = split_at(flag, v, '=');
      if (!o.policy_params.emplace(k, val).second)
        throw InputError("--policy-param: '" + k + "' given twice");
    } else if (flag == "--time-scale") {
      o.time_scale = number(flag, v, 0);
    } else if (flag == "--checkpoint-every") {
      o.checkpoint_every = integer(flag, v, 0);
    } else if (flag == "--inject-failure") {
      auto [job, step] = split_at(flag, v, ':');
      o.inject_failure[job] = integer(flag, step, 0);
    } else if (flag == "--models") {
      std::size_t start = 0;
      while (start <= v.size()) {
        const std::size_t comma = std::min(v.find(',', start), v.size());
        if (comma > start) o.models.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (flag == "--probe-repetitions") {
      o.probe_repetitions = static_cast<int>(integer(flag, v, 0));
    } else if (flag == "--repetitions") {
      o.repetitions = static_cast<int>(integer(flag, v, 1));
    }
  }
  if (!o.resume.empty()) {
    for (const std::string& flag : seen)
      if (flag != "--resume")
        throw InputError("vnexec run --resume: " + flag +
                         " cannot be combined with it (the run's settings come from its run_config.json)");
    if (argv.size() != 3)  // a repeatable option was given too
      throw InputError("vnexec run --resume RUN_DIR takes no other option");
    o.out = o.resume;
    return o;
  }
  if (o.out.empty()) throw InputError("vnexec " + o.command + ": --out is required");
  if (o.command == "run" && (o.trace.empty() || o.cluster.empty()))
    throw InputError("vnexec run: --trace and --cluster are required");
  if (seen.count("--vc-borrow") && o.vc_quotas.empty())
    throw InputError("--vc-borrow needs --vc-quotas FILE|trace");
  // As in vnsim replay: the quota wrapper gives its VCs' policies no noise profiles.
  if (!o.vc_quotas.empty() && !o.noise.empty())
    throw InputError("--noise cannot be combined with --vc-quotas");
  if (o.command == "calibrate" && o.models.empty())
    throw InputError("vnexec calibrate: --models is required");
  return o;
}

}  // namespace vnsim::real_exec::mpi
