#include "replay_recorder.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpu_set.hpp"

namespace vnsim::sim {

ReplayRecorder::ReplayRecorder(const std::vector<JobSpec>& jobs)
    : held_since_(jobs.size(), -1), held_milli_(jobs.size(), kGpuMilli) {
  result_.jobs.reserve(jobs.size());
  for (const JobSpec& spec : jobs) {
    JobRecord rec;
    rec.id = spec.id;
    rec.submit_s = spec.submit_s;
    rec.requested_gpus = spec.gpus;
    rec.model = spec.model;
    rec.iterations = spec.iterations;
    rec.vc = spec.vc;
    rec.virtual_nodes = spec.effective_virtual_nodes();
    result_.jobs.push_back(std::move(rec));
  }
}

void ReplayRecorder::started(JobIndex job, double now_s, const std::vector<GpuId>& gpus, int milli) {
  JobRecord& rec = result_.jobs.at(job);
  if (rec.start_s < 0) rec.start_s = now_s;
  rec.gpus = gpus;
  std::sort(rec.gpus.begin(), rec.gpus.end());
  held_since_[job] = now_s;
  held_milli_[job] = milli;
  log(AllocationEvent{now_s, job, true, gpus, milli, AllocationCause::Start});
  if (listener_ != nullptr) listener_->taken(gpus);
}

// Closes the job's current holding of `gpus`: attained service, energy, cost.
void ReplayRecorder::hold_ended(JobIndex job, const std::vector<GpuId>& gpus, double now_s) {
  JobRecord& rec = result_.jobs.at(job);
  double held = now_s - held_since_[job];
  // A shared GPU's time is split by share (exclusive holds stay bit-exact).
  if (held_milli_[job] != kGpuMilli) held *= static_cast<double>(held_milli_[job]) / kGpuMilli;
  rec.gpu_seconds += static_cast<double>(gpus.size()) * held;
  held_since_[job] = -1;
  if (rates_.empty()) return;
  for (GpuId g : gpus) {
    const GpuRate& r = rates_.at(static_cast<std::size_t>(g));
    GpuTypeUsage& t = result_.usage.per_type[r.type];
    rec.energy_j += r.busy_watts * held;
    rec.cost_usd += r.usd_per_s * held;
    (r.spot ? t.spot_busy_gpu_s : t.on_demand_busy_gpu_s) += held;
    t.busy_energy_j += r.busy_watts * held;
    t.cost_usd += r.usd_per_s * held;
  }
}

void ReplayRecorder::completed(JobIndex job, double now_s, const std::vector<GpuId>& gpus) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] < 0) throw std::logic_error("job " + rec.id + " completed without holding GPUs");
  hold_ended(job, gpus, now_s);
  if (listener_ != nullptr) listener_->released(gpus);
  rec.finish_s = now_s;
  rec.state = FinalState::Completed;
  rec.reason.clear();
  log(AllocationEvent{now_s, job, false, gpus, held_milli_[job], AllocationCause::Complete});
  count_done();
}

void ReplayRecorder::preempted(JobIndex job, double now_s, const std::vector<GpuId>& gpus,
                               AllocationCause cause) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] < 0) throw std::logic_error("job " + rec.id + " preempted without holding GPUs");
  hold_ended(job, gpus, now_s);
  if (listener_ != nullptr) listener_->released(gpus);
  ++rec.restarts;
  log(AllocationEvent{now_s, job, false, gpus, held_milli_[job], cause});
}

void ReplayRecorder::resized(JobIndex job, double now_s, const std::vector<GpuId>& old_gpus,
                             const std::vector<GpuId>& new_gpus) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] < 0) throw std::logic_error("job " + rec.id + " resized without holding GPUs");
  hold_ended(job, old_gpus, now_s);
  ++rec.restarts;
  log(AllocationEvent{now_s, job, false, old_gpus, held_milli_[job], AllocationCause::Resize});
  rec.gpus = new_gpus;
  std::sort(rec.gpus.begin(), rec.gpus.end());
  held_since_[job] = now_s;
  log(AllocationEvent{now_s, job, true, new_gpus, held_milli_[job], AllocationCause::Resize});
  if (listener_ != nullptr) {
    // GPUs kept across the resize stay held: no power-state change for them.
    listener_->released(gpus_not_in(old_gpus, rec.gpus));
    listener_->taken(gpus_not_in(rec.gpus, old_gpus));
  }
}

void ReplayRecorder::lost_work(JobIndex job, double seconds) {
  result_.jobs.at(job).lost_work_s += seconds;
  result_.usage.lost_work_s += seconds;
}

void ReplayRecorder::set_accounting(std::vector<std::string> type_names, std::vector<GpuRate> per_gpu) {
  rates_ = std::move(per_gpu);
  result_.usage.per_type.assign(type_names.size(), GpuTypeUsage{});
  for (std::size_t t = 0; t < type_names.size(); ++t) result_.usage.per_type[t].type = type_names[t];
  for (const GpuRate& r : rates_) ++result_.usage.per_type.at(r.type).gpus;
}

void ReplayRecorder::node_left(const std::vector<GpuId>& gpus, double now_s) {
  for (GpuId g : gpus) downs_.push_back(DownInterval{g, now_s, std::numeric_limits<double>::infinity()});
  if (listener_ != nullptr) listener_->went_down(gpus);
}

void ReplayRecorder::node_returned(const std::vector<GpuId>& gpus, double now_s) {
  for (GpuId g : gpus) {
    // A GPU's latest interval is its open one (a node is down at most once at a time).
    auto open =
        std::find_if(downs_.rbegin(), downs_.rend(), [g](const DownInterval& d) { return d.gpu == g; });
    if (open == downs_.rend() || open->to_s != std::numeric_limits<double>::infinity())
      throw std::logic_error("GPU " + std::to_string(g) + " returned without having left");
    open->to_s = now_s;
  }
  if (listener_ != nullptr) listener_->came_up(gpus);
}

void ReplayRecorder::set_measured_energy(std::vector<double> busy_j, std::vector<double> idle_j) {
  if (busy_j.size() != result_.usage.per_type.size() || idle_j.size() != result_.usage.per_type.size())
    throw std::logic_error("measured energy must have one value per GPU type");
  measured_busy_j_ = std::move(busy_j);
  measured_idle_j_ = std::move(idle_j);
}

// Idle time = capacity over [0, span] minus busy and down time, per type.
void ReplayRecorder::finish_usage(double span_s) {
  if (rates_.empty()) return;
  std::vector<double> idle_watts(result_.usage.per_type.size(), 0);
  for (const GpuRate& r : rates_) idle_watts[r.type] = r.idle_watts;
  for (const DownInterval& d : downs_) {
    const double overlap = std::max(0.0, std::min(d.to_s, span_s) - std::max(d.from_s, 0.0));
    result_.usage.per_type[rates_.at(static_cast<std::size_t>(d.gpu)).type].down_gpu_s += overlap;
  }
  for (std::size_t t = 0; t < result_.usage.per_type.size(); ++t) {
    GpuTypeUsage& u = result_.usage.per_type[t];
    const double capacity = static_cast<double>(u.gpus) * span_s;
    u.idle_gpu_s = std::max(0.0, capacity - u.on_demand_busy_gpu_s - u.spot_busy_gpu_s - u.down_gpu_s);
    u.idle_energy_j = idle_watts[t] * u.idle_gpu_s;
    if (!measured_busy_j_.empty()) {
      u.busy_energy_j = measured_busy_j_[t];
      u.idle_energy_j = measured_idle_j_[t];
    }
  }
}

void ReplayRecorder::rejected(JobIndex job, double /*now_s*/, const std::string& reason) {
  JobRecord& rec = result_.jobs.at(job);
  if (held_since_[job] >= 0) throw std::logic_error("job " + rec.id + " rejected while holding GPUs");
  rec.state = FinalState::Rejected;
  rec.reason = reason.empty() ? "rejected without a reason by the policy" : reason;
  count_done();
}

void ReplayRecorder::log(AllocationEvent e) {
  if (sink_) {
    sink_(e);
  } else {
    result_.allocations.push_back(std::move(e));
  }
}

void ReplayRecorder::count_done() {
  ++done_;
}

ReplayResult ReplayRecorder::take(double simulated_end_s, const DecisionCost& scheduler) {
  finish_usage(simulated_end_s);
  result_.simulated_end_s = simulated_end_s;
  result_.scheduler_wall_s = scheduler.wall_s();
  result_.scheduler_calls = scheduler.calls();
  result_.scheduler_active_jobs_mean = scheduler.active_jobs_mean();
  result_.scheduler_cpu_s = scheduler.cpu_s();
  result_.scheduler_cpu_measured_calls = scheduler.measured_calls();
  result_.scheduler_unchanged_calls = scheduler.unchanged_calls();
  result_.scheduler_unchanged_cpu_s = scheduler.unchanged_cpu_s();
  result_.scheduler_idle_calls = scheduler.idle_calls();
  result_.scheduler_idle_cpu_s = scheduler.idle_cpu_s();
  return std::move(result_);
}

}  // namespace vnsim::sim
