#include "run_clock.hpp"

#include <algorithm>

namespace vnsim::sim {

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
