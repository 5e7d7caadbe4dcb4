#pragma once
// Each job's current run as a timeline: its idle-network iteration time, the
// run time of what is left, its progress at a speed that may change, and the
// analytic end the controller waits for. An end is tagged with the job's
// epoch (launches and re-timings so far), so a run that was stopped, restarted
// or re-timed leaves its old end behind as stale instead of searching the
// heap for it. No SimGrid.
//
// The clock is the one writer of each job's RunTimes: the job lifecycle
// (estimates, runs begun, set-ups, stops, GPU co-tenants' speeds) and the
// ring engines (segments timed analytically or by actors, speeds) tell it
// what happened through the calls below and read the record back.
#include <cstddef>
#include <optional>
#include <vector>

#include "run_progress.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::sim {

struct RunTimes {
  double iteration_s = 0;         // idle-network iteration time in the current placement
  double estimated_total_s = -1;  // idle-network run time of the current segment
  double analytic_end_s = -1;     // -1 while the run keeps its own time (actors) or is setting up
  double segment_start_s = 0;     // when the current segment (run, quiet or actor stretch) began
  RunProgress progress;
  int epoch = 0;  // tells stale ends and reports apart
};

class RunClock {
 public:
  struct End {
    double time_s;
    JobIndex job;
    int epoch = 0;
    bool operator>(const End& o) const { return time_s != o.time_s ? time_s > o.time_s : job > o.job; }
  };

  explicit RunClock(std::size_t jobs) : runs_(jobs) {}

  const RunTimes& at(JobIndex job) const { return runs_[job]; }
  int epoch(JobIndex job) const { return runs_[job].epoch; }

  // The lifecycle's events.
  // The run on the job's current placement takes `iteration_s` per
  // iteration on an idle network, with `iterations_left` to go.
  void estimate(JobIndex job, double iteration_s, long long iterations_left);
  // Progress of a new run begins at `now` at `rate` (its GPU co-tenants'
  // speed); it has no analytic end until one is set.
  void begin_run(JobIndex job, double rate, double now);
  // The run ends analytically after its run time at its speed: a job whose
  // links carry only its own traffic.
  void end_after_run_time(JobIndex job, double now);
  // A set-up (a restore, a start charge, a communicator rebuild) until
  // `time_s`: a wake then, no analytic end.
  void set_up_until(JobIndex job, double time_s);
  // A set-up whose end its actors report (a state broadcast): no analytic end.
  void set_up_until_reported(JobIndex job) { runs_[job].analytic_end_s = -1; }
  // The run stopped: its pending end (heap entry or actor report) turns
  // stale, and it has no analytic end.
  void stop(JobIndex job);

  // The ring engines' events.
  // A segment of `iterations` timed analytically from `now` at `rate`
  // (progress begins anew; the end follows).
  void begin_analytic_segment(JobIndex job, long long iterations, double rate, double now);
  // A segment of `iterations` run by actors from `now`, the first one
  // already `head_start_s` along: no analytic end until they report.
  void begin_actor_segment(JobIndex job, long long iterations, double head_start_s, double now);
  // The speed of a run that keeps its own time (a ring's actors): noted only.
  void note_rate(JobIndex job, double rate) { runs_[job].progress.note_rate(rate); }

  // Events of both.
  // The job's pending end (heap entry or actor report) turns stale.
  void invalidate(JobIndex job) { ++runs_[job].epoch; }
  // From `now` segment progress runs at `rate`: the progress so far is
  // banked, and the end moves (the old one turns stale).
  void change_rate(JobIndex job, double rate, double now);

  // The run ends analytically at `time_s`.
  void end_at(JobIndex job, double time_s);
  // A wake at `time_s` for the job (the end of a set-up), leaving its analytic end unset.
  void wake_at(JobIndex job, double time_s) { push_end(End{time_s, job, runs_[job].epoch}); }
  // Where the current segment ends if nothing changes: its analytic end, or
  // its start plus its idle-network run time.
  double expected_end_s(JobIndex job) const;

  std::optional<double> next_s() const;
  // Pops the stale ends from the top, so they no longer wake the controller,
  // and, once the heap has doubled since the last time, drops every stale
  // end: a job restarted every time slice leaves one behind each time, due
  // only at its far-off old end, and they would grow the heap (memory and
  // log n) for the whole run.
  void drop_stale();
  // Ends in the heap, stale ones not dropped yet included.
  std::size_t pending_ends() const { return ends_.size(); }
  // Moves every end at or before `now` (stale ones included) to `out`.
  void take_due(double now, std::vector<End>& out);

 private:
  void push_end(const End& e);
  void pop_end();

  std::vector<RunTimes> runs_;
  // A min-heap of ends (std::greater<>), stale ones included until dropped.
  std::vector<End> ends_;
  std::size_t compact_at_ = kFirstCompaction;
  static constexpr std::size_t kFirstCompaction = 1024;
};

}  // namespace vnsim::sim
