// Gavel's space sharing (Gavel, Narayanan et al., OSDI'20: rows of X for
// job pairs, each member's rate when co-located): the LP's input for job pairs
// and the round mechanism's view of pairs. The rates of a pair come from the
// interference table the engine slows co-tenants with (docs/HETEROGENEITY.md,
// "GPU sharing"), so the policy plans with the speeds the engine simulates.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "vnsim/core/interference.hpp"
#include "vnsim/core/throughput_profile.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {
namespace {

constexpr JobIndex kNoJob = std::numeric_limits<JobIndex>::max();

// As the engine: a model without a Gavel family keeps its own name, which
// the table answers with its default fraction.
std::string family_of(const JobSpec& spec) {
  return ThroughputProfiles::builtin().family_of_model(spec.model).value_or(spec.model);
}

}  // namespace

double GavelPolicy::pair_fraction(const Cluster& cluster, int type, const JobSpec& a,
                                  const JobSpec& b) const {
  return InterferenceTable::builtin().fraction(cluster.gpu_types()[static_cast<std::size_t>(type)],
                                               family_of(a), family_of(b));
}

void GavelPolicy::add_sharing(const SchedulerInput& input, const std::vector<Active>& active,
                              GavelProblem& p) const {
  const Cluster& cluster = input.view->cluster();
  std::map<std::string, int> index;
  std::vector<std::string> families;
  for (const Active& a : active) {
    const std::string f = family_of(*a.spec);
    auto [it, added] = index.emplace(f, static_cast<int>(families.size()));
    if (added) families.push_back(f);
    p.sharing.family.push_back(it->second);
  }
  const InterferenceTable& table = InterferenceTable::builtin();
  for (const std::string& type : cluster.gpu_types()) {
    std::vector<std::vector<double>> by_family(families.size(), std::vector<double>(families.size(), 0));
    for (std::size_t f = 0; f < families.size(); ++f)
      for (std::size_t g = 0; g < families.size(); ++g)
        by_family[f][g] = table.fraction(type, families[f], families[g]);
    p.sharing.fraction.push_back(std::move(by_family));
  }
  p.sharing.partners_per_class = params_.partners_per_class;
}

std::vector<double>& GavelPolicy::pair_time(JobIndex a, JobIndex b, int types) {
  auto [it, added] = pair_time_.try_emplace(std::minmax(a, b));
  // Gavel's pseudo-count, as for single jobs.
  if (added) it->second.assign(static_cast<std::size_t>(types), params_.round_s / 2);
  return it->second;
}

std::vector<double> GavelPolicy::pair_time_per_type(const std::vector<Active>& active, int types) const {
  std::vector<double> out(static_cast<std::size_t>(types), 0);
  std::set<JobIndex> ids;
  for (const Active& a : active) ids.insert(a.index);
  for (const auto& [pair, time] : pair_time_)
    if (ids.count(pair.first) != 0 && ids.count(pair.second) != 0)
      for (std::size_t j = 0; j < out.size() && j < time.size(); ++j) out[j] += time[j];
  return out;
}

std::vector<double> GavelPolicy::pair_allocation_of(JobIndex a, JobIndex b) const {
  const auto it = pair_x_.find(std::minmax(a, b));
  return it == pair_x_.end() ? std::vector<double>{} : it->second;
}

// The LP's job pairs whose jobs are both active, with Gavel's priority
// X_kj / (time_kj / time_j).
std::vector<GavelPolicy::PairPick> GavelPolicy::pair_picks(const std::vector<Active>& active,
                                                           const std::vector<double>& type_time) const {
  std::vector<PairPick> out;
  if (pair_x_.empty()) return out;
  std::map<JobIndex, std::size_t> pos_of;
  for (std::size_t pos = 0; pos < active.size(); ++pos) pos_of[active[pos].index] = pos;
  for (const auto& [pair, x] : pair_x_) {
    const auto pa = pos_of.find(pair.first), pb = pos_of.find(pair.second);
    if (pa == pos_of.end() || pb == pos_of.end()) continue;
    const auto t = pair_time_.find(pair);
    for (std::size_t j = 0; j < x.size() && j < type_time.size(); ++j) {
      if (!(x[j] > 0) || !(type_time[j] > 0)) continue;
      const double time = t == pair_time_.end() ? params_.round_s / 2 : t->second[j];
      out.push_back(PairPick{x[j] / (time / type_time[j]), x[j], pa->second, pb->second, static_cast<int>(j),
                             active[pa->second].throughput[j]});
    }
  }
  return out;
}

JobIndex GavelPolicy::partner_of(const ClusterView& view, const RunningJob& r) const {
  // Without space sharing every start takes whole free GPUs, so no job has
  // a partner: the tenant lists (a cache miss per running job and call on a
  // large cluster) are not read.
  if (!params_.space_sharing || r.placement.gpus.empty()) return kNoJob;
  for (const GpuTenant& t : view.tenants(r.placement.gpus.front()))
    if (t.job != r.index) return t.job;
  return kNoJob;
}

std::optional<std::vector<GpuId>> GavelPolicy::place_pair(FreeGpus& free, const Active& a, const Active& b,
                                                          int type) {
  const GpuTypeMask mask = memos_[a.index].allowed & memos_[b.index].allowed & (GpuTypeMask{1} << type);
  auto gpus = placement_->place(free, a.spec->gpus, mask);
  if (!gpus) return std::nullopt;
  free.take(*gpus);
  return gpus;
}

}  // namespace vnsim
