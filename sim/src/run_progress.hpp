#pragma once
// A run's progress, in alone-seconds of work, at a speed that may change
// while it runs (1 = alone; below 1 next to GPU co-tenants, or for a fluid
// ring while its all-reduce is stretched): the progress banked when the
// speed last changed plus speed x the time since. An analytic job's end
// follows from it. No SimGrid.
namespace vnsim::sim {

class RunProgress {
 public:
  double rate() const { return rate_; }
  // Ran below rate 1 at some point of this run.
  bool slowed() const { return slowed_; }
  double progress_s(double now) const { return banked_s_ + (now - since_s_) * rate_; }
  // The progress banked at the last change of speed.
  double banked_s() const { return banked_s_; }

  // A new run starts with no progress at `rate`.
  void begin_run(double rate, double now) {
    begin_segment(rate, now);
    slowed_ = rate != 1;
  }
  // A new segment of the same run (a quiet or fluid ring timed
  // analytically from `now`) starts with no progress at `rate`.
  void begin_segment(double rate, double now) {
    rate_ = rate;
    banked_s_ = 0;
    since_s_ = now;
    slowed_ = slowed_ || rate != 1;
  }
  // The progress so far is banked at the old speed; `rate` from `now` on.
  void change_rate(double rate, double now) {
    banked_s_ = progress_s(now);
    since_s_ = now;
    rate_ = rate;
    slowed_ = slowed_ || rate != 1;
  }
  // The speed of a run that keeps its own time (a ring's actors): noted only.
  void note_rate(double rate) {
    rate_ = rate;
    slowed_ = slowed_ || rate != 1;
  }

 private:
  double rate_ = 1;
  double banked_s_ = 0;
  double since_s_ = 0;
  bool slowed_ = false;
};

}  // namespace vnsim::sim
