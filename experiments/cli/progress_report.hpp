#pragma once
// The one progress reporter of the CLI's long commands (`vnsim replay`,
// `vnsim sweep`; docs/OUTPUTS.md, "Progress on stderr"). It owns how and
// when progress is shown; each command only says what: a fraction and a
// text for the bar, a text for a status line.
// - On a terminal: a bar redrawn in place, at most every 0.2 s of wall time
//   unless the work is done.
// - Otherwise (a file, a pipe, nohup, a batch system): one status line every
//   interval of wall time (10 s; VNSIM_STATUS_INTERVAL_S overrides it, 0 =
//   at every report), for the commands that print them.
// - With --quiet: nothing.
#include <chrono>
#include <cstdio>
#include <string>

namespace vnsim::cli {

class ProgressReport {
 public:
  enum class Mode { Off, Bar, StatusLines };
  // `interval_s`: the status lines' wall-clock interval.
  ProgressReport(Mode mode, double interval_s, std::FILE* out = stderr);
  // The mode for stderr: off when quiet, the bar on a terminal, else status
  // lines every VNSIM_STATUS_INTERVAL_S (default 10 s; a bad value is an
  // InputError), or off when the command prints no status lines.
  static ProgressReport for_stderr(bool quiet, bool status_lines);

  Mode mode() const { return mode_; }
  // Wall seconds since the reporter was made.
  double wall_s() const;
  // Whether a report now would be shown: the bar's redraw interval or the
  // status lines' interval has passed since the last one (`done` forces the
  // bar's last redraw).
  bool due(bool done) const;
  // Draws "\r[####      ] text" (fraction in [0, 1]).
  void bar(double fraction, const std::string& text);
  // Prints one status line.
  void line(const std::string& text);
  // Wall seconds since the last bar or line (since the start before any).
  double since_last_s() const;
  // Ends the bar's line.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  Mode mode_;
  double interval_s_;
  std::FILE* out_;
  Clock::time_point start_ = Clock::now();
  double last_draw_s_ = -1;
  bool drew_bar_ = false;
};

}  // namespace vnsim::cli
