#pragma once
// Progress of `vnsim replay` on stderr (docs/CLI.md, "Progress").
// - On a terminal: a bar redrawn a few times a second. Its fraction and ETA
//   follow the simulated clock through the trace's submit span, not the
//   count of finished jobs, which says little while long jobs run; past the
//   last submission only the jobs left are shown.
// - Otherwise (a file, a pipe, nohup, a batch system): one status line every
//   interval of wall time (10 s; VNSIM_STATUS_INTERVAL_S overrides it, 0 =
//   at every report): simulated time, jobs done, jobs/s, RSS.
// - With --quiet: nothing.
#include <chrono>
#include <cstdio>
#include <string>

#include "vnsim/sim/replay.hpp"

namespace vnsim::cli {

class ReplayProgressReport {
 public:
  enum class Mode { Off, Bar, StatusLines };
  // `interval_s`: the status lines' wall-clock interval.
  ReplayProgressReport(Mode mode, double interval_s, std::FILE* out = stderr);
  // The mode for stderr: off when quiet, the bar on a terminal, else status
  // lines every VNSIM_STATUS_INTERVAL_S (default 10 s; a bad value is an
  // InputError).
  static ReplayProgressReport for_stderr(bool quiet);
  void update(const ReplayProgress& p);
  void finish();

  // Text of one status line (no newline), public for its unit test.
  static std::string status_line(const ReplayProgress& p, double wall_s, double jobs_per_s, double rss_mb);

 private:
  using Clock = std::chrono::steady_clock;
  void draw_bar(const ReplayProgress& p, double wall_s);
  Mode mode_;
  double interval_s_;
  std::FILE* out_;
  Clock::time_point start_ = Clock::now();
  double last_draw_s_ = -1;
  std::size_t done_at_last_draw_ = 0;
  bool drew_bar_ = false;
};

}  // namespace vnsim::cli
