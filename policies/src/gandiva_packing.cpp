// Gandiva's packing (Gandiva, Xiao et al., OSDI'18; Gavel's
// scheduler/policies/gandiva.py drops pairs whose normalised throughput sum
// is below 1): when the cluster is
// oversubscribed, two jobs share GPUs; after a slice the pair is judged by
// its combined throughput and unpacked when that is below 1. Here the
// "measurement" is the interference table the engine slows the pair with
// (docs/HETEROGENEITY.md, "GPU sharing"), read only once the pair has run.
#include <algorithm>
#include <map>
#include <variant>

#include "vnsim/core/interference.hpp"
#include "vnsim/core/throughput_profile.hpp"
#include "vnsim/policies/gandiva_policy.hpp"

namespace vnsim {
namespace {

constexpr int kHalfGpu = kGpuMilli / 2;

std::string family_of(const JobSpec& spec) {
  return ThroughputProfiles::builtin().family_of_model(spec.model).value_or(spec.model);
}

// Combined throughput of a packed pair: each job's fraction of its alone
// speed, summed. Gandiva keeps a pair when this is at least 1.
double combined_throughput(const std::string& gpu_type, const JobSpec& a, const JobSpec& b) {
  const InterferenceTable& table = InterferenceTable::builtin();
  const std::string fa = family_of(a), fb = family_of(b);
  return table.fraction(gpu_type, fa, fb) + table.fraction(gpu_type, fb, fa);
}

bool type_allowed(const Cluster& cluster, GpuId g, const QueuedJob& q) {
  return (cluster.gpu_type_bit(g) & q.allowed_types & cluster.type_mask(q.spec->gpu_type)) != 0;
}

std::map<JobIndex, const JobSpec*> running_specs(const SchedulerInput& input) {
  std::map<JobIndex, const JobSpec*> out;
  for (const RunningJob& r : input.running) out[r.index] = r.spec;
  return out;
}

}  // namespace

// A pair that does not fit on one GPU (fraction 0) is never packed; nor is
// one already unpacked on this GPU type.
bool GandivaPolicy::pair_allowed(const std::string& gpu_type, const JobSpec& a, const JobSpec& b) const {
  const InterferenceTable& table = InterferenceTable::builtin();
  const std::string fa = family_of(a), fb = family_of(b);
  if (table.fraction(gpu_type, fa, fb) <= 0 || table.fraction(gpu_type, fb, fa) <= 0) return false;
  return bad_pairs_.count({gpu_type, fa, fb}) == 0;
}

// At a slice boundary, each job packed before now has been measured: it
// stays when its pair's combined throughput is at least 1 on every shared
// GPU, else it is suspended (its partner runs on alone).
std::vector<Decision> GandivaPolicy::unpack_bad_pairs(const SchedulerInput& input) {
  std::vector<Decision> out;
  const auto specs = running_specs(input);
  const Cluster& cluster = input.view->cluster();
  for (const RunningJob& r : input.running) {
    if (r.index >= packed_at_s_.size() || packed_at_s_[r.index] < 0 || packed_at_s_[r.index] >= input.now_s)
      continue;
    packed_at_s_[r.index] = -1;
    bool bad = false;
    for (GpuId g : r.placement.gpus) {
      const std::string& type = cluster.gpu(g).type;
      for (const GpuTenant& t : input.view->tenants(g)) {
        const auto other = specs.find(t.job);
        if (t.job == r.index || other == specs.end()) continue;
        if (combined_throughput(type, *r.spec, *other->second) >= 1) continue;
        bad = true;
        const std::string fa = family_of(*r.spec), fb = family_of(*other->second);
        bad_pairs_.insert({type, fa, fb});
        bad_pairs_.insert({type, fb, fa});
      }
    }
    if (bad) out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{r.index});
  }
  return out;
}

// When nothing else can start: jobs that ask for a share of a GPU, onto GPUs
// that already hold others. Each GPU the job needs is the fullest one that
// still holds the share (best fit), among the types the job may use. Free
// GPUs are the time-slicing pass's to give.
std::vector<Decision> GandivaPolicy::place_shares(const SchedulerInput& input,
                                                  const std::vector<const QueuedJob*>& order) {
  std::vector<Decision> out;
  const ClusterView& view = *input.view;
  const Cluster& cluster = view.cluster();
  const auto specs = running_specs(input);
  std::vector<int> taken(static_cast<std::size_t>(cluster.gpu_count()), 0);  // milli placed in this call
  std::map<GpuId, std::vector<const JobSpec*>> placed_specs;                 // jobs placed in this call
  for (const QueuedJob* q : order) {
    const int milli = q->spec->gpu_milli;
    if (milli <= 0 || milli >= kGpuMilli) continue;
    std::vector<std::pair<int, GpuId>> fits;  // (free milli left, GPU)
    for (GpuId g = 0; g < cluster.gpu_count(); ++g) {
      if (!type_allowed(cluster, g, *q) || (view.tenants(g).empty() && taken[g] == 0)) continue;
      const int left = view.free_milli(g) - taken[g];
      if (left < milli) continue;
      bool ok = true;
      for (const GpuTenant& t : view.tenants(g)) {
        const auto s = specs.find(t.job);
        ok = ok && s != specs.end() && pair_allowed(cluster.gpu(g).type, *q->spec, *s->second);
      }
      for (const JobSpec* s : placed_specs[g]) ok = ok && pair_allowed(cluster.gpu(g).type, *q->spec, *s);
      if (ok) fits.emplace_back(left, g);
    }
    if (static_cast<int>(fits.size()) < q->spec->gpus) continue;
    std::sort(fits.begin(), fits.end());
    std::vector<GpuId> gpus;
    for (int i = 0; i < q->spec->gpus; ++i) gpus.push_back(fits[static_cast<std::size_t>(i)].second);
    std::sort(gpus.begin(), gpus.end());
    for (GpuId g : gpus) {
      taken[g] += milli;
      placed_specs[g].push_back(q->spec);
    }
    out.emplace_back(
        std::in_place_type<StartJob>,
        StartJob{q->index, spread_virtual_nodes(gpus, q->spec->effective_virtual_nodes()), milli});
  }
  return out;
}

// One whole-GPU job still waiting is packed, half a GPU each: onto GPUs where
// one job already runs on half, else next to a job holding exactly as many
// whole GPUs, which is suspended and resumed on its half at once (the
// engine's preemption, free by default). The partner is the one that has
// run longest: Gandiva does not know the pair's interference before trying.
std::vector<Decision> GandivaPolicy::pack(const SchedulerInput& input,
                                          const std::vector<const QueuedJob*>& order) {
  std::vector<Decision> out;
  const ClusterView& view = *input.view;
  const Cluster& cluster = view.cluster();
  const auto specs = running_specs(input);
  auto grow = [&](JobIndex j) {
    if (packed_at_s_.size() <= j) packed_at_s_.resize(j + 1, -1);
  };
  for (const QueuedJob* q : order) {
    if (q->spec->gpu_milli > 0 && q->spec->gpu_milli < kGpuMilli) continue;  // place_shares' job
    const int k = q->spec->gpus;
    // GPUs half held by one job.
    std::vector<GpuId> halves;
    for (GpuId g = 0; g < cluster.gpu_count() && static_cast<int>(halves.size()) < k; ++g) {
      const auto& ts = view.tenants(g);
      if (ts.size() != 1 || view.free_milli(g) < kHalfGpu || !type_allowed(cluster, g, *q)) continue;
      const auto s = specs.find(ts.front().job);
      if (s != specs.end() && pair_allowed(cluster.gpu(g).type, *q->spec, *s->second)) halves.push_back(g);
    }
    if (static_cast<int>(halves.size()) == k) {
      grow(q->index);
      packed_at_s_[q->index] = input.now_s;
      out.emplace_back(
          std::in_place_type<StartJob>,
          StartJob{q->index, spread_virtual_nodes(halves, q->spec->effective_virtual_nodes()), kHalfGpu});
      return out;
    }
    // A job alone on exactly k whole GPUs, the earliest started first.
    const RunningJob* partner = nullptr;
    for (const RunningJob& r : input.running) {
      if (static_cast<int>(r.placement.gpus.size()) != k) continue;
      bool ok = true;
      for (GpuId g : r.placement.gpus) {
        const auto& ts = view.tenants(g);
        ok = ok && ts.size() == 1 && ts.front().milli == kGpuMilli && type_allowed(cluster, g, *q) &&
             pair_allowed(cluster.gpu(g).type, *q->spec, *r.spec);
      }
      if (ok && (partner == nullptr || r.start_s < partner->start_s)) partner = &r;
    }
    if (partner == nullptr) continue;
    grow(q->index);
    packed_at_s_[q->index] = input.now_s;
    out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{partner->index});
    out.emplace_back(std::in_place_type<StartJob>, StartJob{partner->index, partner->placement, kHalfGpu});
    out.emplace_back(
        std::in_place_type<StartJob>,
        StartJob{q->index, spread_virtual_nodes(partner->placement.gpus, q->spec->effective_virtual_nodes()),
                 kHalfGpu});
    return out;
  }
  return out;
}

}  // namespace vnsim
