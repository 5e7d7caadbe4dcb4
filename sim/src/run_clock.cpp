#include "run_clock.hpp"

#include <algorithm>
#include <functional>

namespace vnsim::sim {

void RunClock::estimate(JobIndex job, double iteration_s, long long iterations_left) {
  RunTimes& r = runs_[job];
  r.iteration_s = iteration_s;
  r.estimated_total_s = static_cast<double>(iterations_left) * iteration_s;
}

void RunClock::begin_run(JobIndex job, double rate, double now) {
  RunTimes& r = runs_[job];
  r.segment_start_s = now;
  r.analytic_end_s = -1;
  r.progress.begin_run(rate, now);
}

void RunClock::end_after_run_time(JobIndex job, double now) {
  const RunTimes& r = runs_[job];
  end_at(job, now + r.estimated_total_s / r.progress.rate());
}

void RunClock::set_up_until(JobIndex job, double time_s) {
  runs_[job].analytic_end_s = -1;
  wake_at(job, time_s);
}

void RunClock::stop(JobIndex job) {
  invalidate(job);
  runs_[job].analytic_end_s = -1;
}

void RunClock::begin_analytic_segment(JobIndex job, long long iterations, double rate, double now) {
  RunTimes& r = runs_[job];
  r.segment_start_s = now;
  r.estimated_total_s = static_cast<double>(std::max(0LL, iterations)) * r.iteration_s;
  r.progress.begin_segment(rate, now);
  end_after_run_time(job, now);
}

void RunClock::begin_actor_segment(JobIndex job, long long iterations, double head_start_s, double now) {
  RunTimes& r = runs_[job];
  r.analytic_end_s = -1;
  r.segment_start_s = now;
  r.estimated_total_s = static_cast<double>(iterations) * r.iteration_s - head_start_s;
}

void RunClock::end_at(JobIndex job, double time_s) {
  runs_[job].analytic_end_s = time_s;
  push_end(End{time_s, job, runs_[job].epoch});
}

void RunClock::change_rate(JobIndex job, double rate, double now) {
  RunTimes& r = runs_[job];
  r.progress.change_rate(rate, now);
  ++r.epoch;
  end_at(job, now + std::max(0.0, r.estimated_total_s - r.progress.banked_s()) / rate);
}

double RunClock::expected_end_s(JobIndex job) const {
  const RunTimes& r = runs_[job];
  return r.analytic_end_s >= 0 ? r.analytic_end_s : r.segment_start_s + r.estimated_total_s;
}

std::optional<double> RunClock::next_s() const {
  if (ends_.empty()) return std::nullopt;
  return ends_.front().time_s;
}

void RunClock::push_end(const End& e) {
  ends_.push_back(e);
  std::push_heap(ends_.begin(), ends_.end(), std::greater<>());
}

void RunClock::pop_end() {
  std::pop_heap(ends_.begin(), ends_.end(), std::greater<>());
  ends_.pop_back();
}

// Dropping stale ends changes nothing else: they are skipped wherever they
// are taken (JobLifecycle::process_ends), an epoch never goes back, and live
// ends equal in time and job are equal in epoch too, so the order in which
// the live ones come out is the same.
void RunClock::drop_stale() {
  const auto stale = [this](const End& e) { return runs_[e.job].epoch != e.epoch; };
  while (!ends_.empty() && stale(ends_.front())) pop_end();
  if (ends_.size() <= compact_at_) return;
  std::erase_if(ends_, stale);
  std::make_heap(ends_.begin(), ends_.end(), std::greater<>());
  compact_at_ = std::max(kFirstCompaction, 2 * ends_.size());
}

void RunClock::take_due(double now, std::vector<End>& out) {
  while (!ends_.empty() && ends_.front().time_s <= now) {
    out.push_back(ends_.front());
    pop_end();
  }
}

}  // namespace vnsim::sim
