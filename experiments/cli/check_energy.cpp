// Energy of a replay, recomputed from its timeline. The replay measures GPU
// energy with SimGrid's host energy plugin (sim/src/gpu_energy_meter.hpp):
// a GPU draws its type's busy power while held by at least one job, its idle
// power while up and free, nothing while down. So per GPU type t
//   busy_j(t) = busy_W(t) × H(t),  idle_j(t) = idle_W(t) × I(t),
//   H(t) + I(t) + down(t) = gpus(t) × span,
// and Σ_t H(t) is the timeline's held GPU time. The timeline does not say
// which GPU is of which type, so H(t) is read back from busy_j(t) and checked
// in sum; on a one-type cluster that is the whole check.
#include "check_energy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "vnsim/core/gpu_catalog.hpp"

namespace vnsim::cli {
namespace {

std::string format(const char* pattern, double a, double b) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b);
  return text;
}

// summary.json prints numbers rounded to 6 decimals: allow that, and the
// floating-point error of sums over many intervals.
bool close(double a, double b, double slack) {
  return std::fabs(a - b) <= slack + 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

std::vector<std::string> energy_problems(const nlohmann::json& summary, const HeldTimeline& held,
                                         const std::vector<JobEnergy>& jobs, std::string& note) {
  std::vector<std::string> problems;
  if (!summary.contains("energy_j") || !summary.at("energy_j").is_object()) {
    note = "energy not in summary.json, not checked";
    return problems;
  }
  const nlohmann::json& energy = summary.at("energy_j");
  const nlohmann::json& per_type = energy.at("per_gpu_type");
  const nlohmann::json& cost_types = summary.at("cost_usd").at("per_gpu_type");
  const double total = energy.at("total").get<double>(), busy = energy.at("busy").get<double>(),
               idle = energy.at("idle").get<double>();
  const double rounding_j = 1e-6 * static_cast<double>(2 + per_type.size());
  if (!close(total, busy + idle, rounding_j))
    problems.push_back(
        format("summary.json energy_j.total is %.6f J, but busy + idle is %.6f J", total, busy + idle));

  double busy_sum = 0, idle_sum = 0, held_from_energy_s = 0;
  double min_busy_w = std::numeric_limits<double>::infinity(), max_busy_w = 0;
  bool every_type_priced = true;
  for (const auto& [name, t] : per_type.items()) {
    const GpuType* type = GpuCatalog::builtin().find(name);
    if (type == nullptr) {
      problems.push_back("summary.json energy_j.per_gpu_type: '" + name +
                         "' is not a GPU type of the catalog");
      continue;
    }
    const double busy_j = t.at("busy_j").get<double>(), idle_j = t.at("idle_j").get<double>();
    const double down_s = t.at("down_gpu_hours").get<double>() * 3600;
    const double gpus = cost_types.at(name).at("gpus").get<double>();
    busy_sum += busy_j;
    idle_sum += idle_j;
    min_busy_w = std::min(min_busy_w, type->busy_watts);
    max_busy_w = std::max(max_busy_w, type->busy_watts);
    if (type->busy_watts <= 0 || type->idle_watts <= 0) {
      every_type_priced = false;
      continue;
    }
    const double held_s = busy_j / type->busy_watts, idle_s = idle_j / type->idle_watts;
    held_from_energy_s += held_s;
    // Every GPU of the type is held, idle or down for the whole span. Down
    // hours are printed to 1e-6 h.
    const double span_s = gpus > 0 ? (held_s + idle_s + down_s) / gpus : held.span_s;
    if (!close(span_s, held.span_s, 1e-6 + 0.0036 / std::max(gpus, 1.0)))
      problems.push_back(
          "summary.json energy_j.per_gpu_type." + name +
          format(": busy, idle and down time cover %.6f s per GPU, but the replay spans %.6f s", span_s,
                 held.span_s));
  }
  if (!close(busy, busy_sum, rounding_j))
    problems.push_back(
        format("summary.json energy_j.busy is %.6f J, but its GPU types add up to %.6f J", busy, busy_sum));
  if (!close(idle, idle_sum, rounding_j))
    problems.push_back(
        format("summary.json energy_j.idle is %.6f J, but its GPU types add up to %.6f J", idle, idle_sum));
  // Each printed take and release time may be 0.5 us off, per GPU.
  const double held_slack_s = 1e-6 * static_cast<double>(held.gpu_takes) + 1e-6;
  if (every_type_priced && !close(held_from_energy_s, held.union_gpu_s, held_slack_s))
    problems.push_back(
        format("summary.json energy_j.busy is the busy power of %.6f GPU-s held, but allocations.csv "
               "holds GPUs for %.6f GPU-s",
               held_from_energy_s, held.union_gpu_s));

  // A job's energy is the busy power of the GPUs it held, × its GPU-seconds
  // (a share of a GPU counts its share): exact on one GPU type, bounded by
  // the lowest and highest busy power on several.
  if (max_busy_w > 0)
    for (const JobEnergy& j : jobs) {
      const double slack = max_busy_w * 1e-6 + 1e-6;
      if (j.energy_j < min_busy_w * j.gpu_seconds - slack - 1e-9 * j.energy_j ||
          j.energy_j > max_busy_w * j.gpu_seconds + slack + 1e-9 * j.energy_j)
        problems.push_back(j.who +
                           format(": energy_j %.6f J, but its %.6f GPU-s at the busy power of its GPU types "
                                  "do not give that",
                                  j.energy_j, j.gpu_seconds));
    }
  note = every_type_priced
             ? format("%.6f J of GPU energy (%.6f GPU-s held) as in summary.json", total, held.union_gpu_s)
             : "energy: a GPU type has no power in the catalog, held time not checked";
  return problems;
}

}  // namespace vnsim::cli
