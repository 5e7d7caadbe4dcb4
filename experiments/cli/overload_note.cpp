#include "overload_note.hpp"

#include <cstddef>
#include <iomanip>
#include <sstream>

#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/policies/offered_load.hpp"

namespace vnsim::cli {

namespace {

// The alone work of every job costs about 2 us a job (its allowed types, its
// shape's cached iteration time): 2 s of a 1M-job replay whose fifo run takes
// 17 s. A note needs no more than an estimate, so above kSampledJobs jobs
// every k-th job stands for k (a trace's order is its arrivals', so the
// sample spans them).
double sampled_work_gpu_s(const std::vector<JobSpec>& jobs, const Cluster& cluster,
                          const ModelCatalog& models) {
  constexpr std::size_t kSampledJobs = 20000;
  if (jobs.size() <= kSampledJobs) return alone_gpu_seconds(jobs, cluster, GpuCatalog::builtin(), models);
  const std::size_t stride = (jobs.size() + kSampledJobs - 1) / kSampledJobs;
  std::vector<JobSpec> sample;
  sample.reserve(jobs.size() / stride + 1);
  for (std::size_t i = 0; i < jobs.size(); i += stride) sample.push_back(jobs[i]);
  return alone_gpu_seconds(sample, cluster, GpuCatalog::builtin(), models) *
         static_cast<double>(jobs.size()) / static_cast<double>(sample.size());
}

}  // namespace

// A trace that asks more than the cluster has while its jobs arrive is a
// queue that grows and then drains for a long simulated time, and the
// policies that re-decide over every waiting job each round pay for every
// round of it: at a load of 2 sia and pollux are still far from done after
// 5 minutes, where the same jobs at 0.8 take under 4
// (docs/PERFORMANCE_HISTORY.md, "The multi-node-heavy trace at a load the
// cluster keeps up with"). Said up
// front, with the --arrival-scale that would bring the load to 0.8, since
// such a load is more often a slip (a cluster too small, arrivals in the
// wrong unit) than a study.
std::string overload_note(const std::vector<JobSpec>& jobs, const Cluster& cluster,
                          const ModelCatalog& models, double arrival_scale) {
  constexpr double kNotedLoad = 1;
  // A queue that drains within a day of simulated time is a few thousand
  // rounds at most, which no policy takes long over: small traces beyond a
  // small cluster (the demo's on `testbed`) get no note.
  constexpr double kNotedDrainS = 86400;
  constexpr double kSuggestedLoad = 0.8;
  const int gpus = cluster.gpu_count();
  const double work_gpu_s = sampled_work_gpu_s(jobs, cluster, models);
  const double load = offered_load(jobs, work_gpu_s, gpus);
  const double drain_s = work_gpu_s / gpus;
  if (!(load > kNotedLoad) || !(drain_s >= kNotedDrainS)) return "";
  std::ostringstream note;
  note.precision(3);
  note << "note: the trace offers the cluster ";
  if (load < 10)
    note << std::setprecision(2) << load;
  else
    note << std::fixed << std::setprecision(0) << load;
  note << std::defaultfloat << " times what it can do while the jobs arrive (" << std::setprecision(3)
       << work_gpu_s << " GPU-s of work, each job alone, on " << gpus
       << " GPUs): the queue drains for at least " << drain_s << " simulated s (" << std::fixed
       << std::setprecision(0) << drain_s / 86400 << " days)" << std::defaultfloat << std::setprecision(3)
       << ", and gandiva, optimus, sia and pollux re-decide over every waiting job each"
          " round, which can take hours on such a trace; --arrival-scale "
       << arrival_scale * kSuggestedLoad / load << " would spread the arrivals to a load of "
       << kSuggestedLoad << " (docs/TRACES.md, \"Offered load\")\n";
  return note.str();
}

}  // namespace vnsim::cli
