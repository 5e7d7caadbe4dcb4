#include "run_clock.hpp"

#include <algorithm>

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
  ends_.push(End{time_s, job, runs_[job].epoch});
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
  return ends_.top().time_s;
}

void RunClock::drop_stale() {
  while (!ends_.empty() && runs_[ends_.top().job].epoch != ends_.top().epoch) ends_.pop();
}

void RunClock::take_due(double now, std::vector<End>& out) {
  while (!ends_.empty() && ends_.top().time_s <= now) {
    out.push_back(ends_.top());
    ends_.pop();
  }
}

}  // namespace vnsim::sim
