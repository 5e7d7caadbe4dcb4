#include "replay_recorder.hpp"

#include <algorithm>
#include <stdexcept>

namespace vnsim::sim {

ReplayRecorder::ReplayRecorder(const std::vector<JobSpec>& jobs,
                               std::function<void(std::size_t, std::size_t)> progress)
    : held_since_(jobs.size(), -1),
      progress_step_(std::max<std::size_t>(1, jobs.size() / 100)),
      progress_(std::move(progress)) {
  result_.jobs.reserve(jobs.size());
  for (const JobSpec& spec : jobs) {
    JobRecord rec;
    rec.id = spec.id;
    rec.submit_s = spec.submit_s;
    rec.requested_gpus = spec.gpus;
    rec.model = spec.model;
    rec.iterations = spec.iterations;
    result_.jobs.push_back(std::move(rec));
  }
}

void ReplayRecorder::started(JobIndex job, double now_s, const std::vector<GpuId>& gpus) {
  JobRecord& rec = result_.jobs.at(job);
  if (rec.start_s < 0) rec.start_s = now_s;
  rec.gpus = gpus;
  std::sort(rec.gpus.begin(), rec.gpus.end());
  held_since_[job] = now_s;
  result_.allocations.push_back(AllocationEvent{now_s, job, true, gpus});
}

void ReplayRecorder::completed(JobIndex job, double now_s, const std::vector<GpuId>& gpus) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] < 0) throw std::logic_error("job " + rec.id + " completed without holding GPUs");
  rec.gpu_seconds += static_cast<double>(gpus.size()) * (now_s - held_since_[job]);
  held_since_[job] = -1;
  rec.finish_s = now_s;
  rec.state = FinalState::Completed;
  rec.reason.clear();
  result_.allocations.push_back(AllocationEvent{now_s, job, false, gpus});
  count_done();
}

void ReplayRecorder::preempted(JobIndex job, double now_s, const std::vector<GpuId>& gpus) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] < 0) throw std::logic_error("job " + rec.id + " preempted without holding GPUs");
  rec.gpu_seconds += static_cast<double>(gpus.size()) * (now_s - held_since_[job]);
  held_since_[job] = -1;
  ++rec.restarts;
  result_.allocations.push_back(AllocationEvent{now_s, job, false, gpus});
}

void ReplayRecorder::rejected(JobIndex job, double /*now_s*/, const std::string& reason) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] >= 0) throw std::logic_error("job " + rec.id + " rejected while holding GPUs");
  rec.state = FinalState::Rejected;
  rec.reason = reason.empty() ? "rejected without a reason by the policy" : reason;
  count_done();
}

void ReplayRecorder::count_done() {
  ++done_;
  if (progress_ && (done_ % progress_step_ == 0 || done_ == result_.jobs.size()))
    progress_(done_, result_.jobs.size());
}

ReplayResult ReplayRecorder::take(double simulated_end_s, double scheduler_wall_s) {
  result_.simulated_end_s = simulated_end_s;
  result_.scheduler_wall_s = scheduler_wall_s;
  return std::move(result_);
}

}  // namespace vnsim::sim
