// A job's speed on one GPU is the product of its fractions next to each
// co-tenant (Gavel measured pairs only; the product extends that to more
// tenants), and a synchronous job runs at its slowest GPU.
#include "gpu_sharing.hpp"

#include <algorithm>
#include <stdexcept>

#include "vnsim/core/interference.hpp"
#include "vnsim/core/throughput_profile.hpp"

namespace vnsim::sim {

std::vector<std::string> interference_families(const std::vector<JobSpec>& jobs) {
  const ThroughputProfiles& profiles = ThroughputProfiles::builtin();
  std::vector<std::string> out;
  out.reserve(jobs.size());
  // A model with no Gavel family keeps its own name: the table then gives it
  // the documented default fraction.
  for (const JobSpec& j : jobs) out.push_back(profiles.family_of_model(j.model).value_or(j.model));
  return out;
}

GpuSharing::GpuSharing(const Cluster& cluster, const std::vector<JobSpec>& jobs, const ClusterView& view)
    : cluster_(cluster), jobs_(jobs), view_(view), family_(interference_families(jobs)) {}

void GpuSharing::check_share(const std::string& policy, const StartJob& d,
                             const std::vector<GpuId>& gpus) const {
  const std::string who = "policy '" + policy + "' started job '" + jobs_[d.job].id + "'";
  if (d.gpu_milli < 0 || d.gpu_milli > kGpuMilli)
    throw std::logic_error(who + " with a share of " + std::to_string(d.gpu_milli) + " milli, must be 0.." +
                           std::to_string(kGpuMilli));
  const InterferenceTable& table = InterferenceTable::builtin();
  for (GpuId g : gpus) {
    const std::string& type = cluster_.gpu(g).type;
    for (const GpuTenant& t : view_.tenants(g))
      if (table.fraction(type, family_[d.job], family_[t.job]) <= 0 ||
          table.fraction(type, family_[t.job], family_[d.job]) <= 0)
        throw std::logic_error(who + " on GPU " + std::to_string(g) + " next to job '" + jobs_[t.job].id +
                               "': the pair does not fit on one " + type + " (interference fraction 0)");
  }
}

double GpuSharing::gpu_rate(JobIndex job, GpuId g) const {
  const InterferenceTable& table = InterferenceTable::builtin();
  const std::string& type = cluster_.gpu(g).type;
  double rate = 1;
  for (const GpuTenant& t : view_.tenants(g))
    if (t.job != job) rate *= table.fraction(type, family_[job], family_[t.job]);
  return rate;
}

double GpuSharing::slowest_rate(JobIndex job, const std::vector<GpuId>& gpus) const {
  double rate = 1;
  for (GpuId g : gpus) rate = std::min(rate, gpu_rate(job, g));
  return rate;
}

std::vector<JobIndex> GpuSharing::co_tenants(const std::vector<GpuId>& gpus, JobIndex except) const {
  std::vector<JobIndex> jobs;
  for (GpuId g : gpus)
    for (const GpuTenant& t : view_.tenants(g))
      if (t.job != except) jobs.push_back(t.job);
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  return jobs;
}

}  // namespace vnsim::sim
