#include "vnsim/policies/sjf_policy.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>

#include "priority_pass.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::infinity();

double known_or_infinite(double estimate) {
  return estimate >= 0 ? estimate : kUnknown;
}

struct Keyed {
  double key;
  PassCandidate candidate;
};

// Ties break on submission time, then job index: deterministic.
void sort_by_key(std::vector<Keyed>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Keyed& a, const Keyed& b) {
    return std::tie(a.key, a.candidate.spec->submit_s, a.candidate.index) <
           std::tie(b.key, b.candidate.spec->submit_s, b.candidate.index);
  });
}

std::vector<PassCandidate> candidates_of(const std::vector<Keyed>& keyed) {
  std::vector<PassCandidate> out;
  out.reserve(keyed.size());
  for (const Keyed& k : keyed) out.push_back(k.candidate);
  return out;
}

double executed_s(double attained_gpu_s, int gpus) {
  return gpus > 0 ? attained_gpu_s / gpus : 0;
}

}  // namespace

SjfPolicy::SjfPolicy(const ShortestFirstParams& params)
    : placement_(make_placement(params.placement, params.seed)) {}

std::vector<Decision> SjfPolicy::decide(const SchedulerInput& input) {
  if (input.queued.empty()) return {};
  // Running jobs keep their GPUs (non-preemptive): they come first.
  std::vector<PassCandidate> ordered;
  for (const RunningJob& r : input.running)
    ordered.push_back(PassCandidate{r.index, r.spec, kAnyGpuType, &r.placement});
  std::vector<Keyed> queued;
  for (const QueuedJob& q : input.queued)
    queued.push_back(
        Keyed{known_or_infinite(q.estimated_remaining_s), {q.index, q.spec, q.allowed_types, nullptr}});
  sort_by_key(queued);
  for (const Keyed& k : queued) ordered.push_back(k.candidate);
  return priority_pass(input, ordered, *placement_, /*preemptive=*/false);
}

SrtfPolicy::SrtfPolicy(const ShortestFirstParams& params)
    : placement_(make_placement(params.placement, params.seed)) {}

double SrtfPolicy::total_estimate(JobIndex job, double estimate_now, double executed) {
  if (first_estimate_.size() <= job) first_estimate_.resize(job + 1, -1);
  if (first_estimate_[job] < 0 && estimate_now >= 0) first_estimate_[job] = estimate_now + executed;
  return first_estimate_[job];
}

std::vector<Decision> SrtfPolicy::decide(const SchedulerInput& input) {
  std::vector<Keyed> keyed;
  for (const RunningJob& r : input.running) {
    const double done = executed_s(r.attained_gpu_s, r.spec->gpus);
    const double total = total_estimate(r.index, r.estimated_remaining_s, done);
    keyed.push_back(
        Keyed{total >= 0 ? total - done : kUnknown, {r.index, r.spec, kAnyGpuType, &r.placement}});
  }
  for (const QueuedJob& q : input.queued) {
    const double done = executed_s(q.attained_gpu_s, q.spec->gpus);
    const double total = total_estimate(q.index, q.estimated_remaining_s, done);
    keyed.push_back(Keyed{total >= 0 ? total - done : kUnknown, {q.index, q.spec, q.allowed_types, nullptr}});
  }
  sort_by_key(keyed);
  return priority_pass(input, candidates_of(keyed), *placement_, /*preemptive=*/true);
}

namespace {
ParamTable<ShortestFirstParams> shortest_first_params() {
  return ParamTable<ShortestFirstParams>().placement(&ShortestFirstParams::placement,
                                                     &ShortestFirstParams::seed);
}
const PolicyRegistration kSjf("sjf", 30, shortest_first_params(),
                              [](const ShortestFirstParams& p) { return std::make_unique<SjfPolicy>(p); });
const PolicyRegistration kSrtf("srtf", 40, shortest_first_params(),
                               [](const ShortestFirstParams& p) { return std::make_unique<SrtfPolicy>(p); });
}  // namespace

}  // namespace vnsim
