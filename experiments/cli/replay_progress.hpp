#pragma once
// What `vnsim replay` reports as progress (docs/OUTPUTS.md, "Progress on
// stderr"); how and when it is shown is ProgressReport's (progress_report.hpp).
// - The bar's fraction and ETA follow the simulated clock through the
//   trace's submit span, not the count of finished jobs, which says little
//   while long jobs run; past the last submission only the jobs left are
//   shown.
// - A status line gives the simulated time, jobs done, jobs/s and RSS.
#include <cstdio>
#include <string>

#include "progress_report.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::cli {

class ReplayProgressReport {
 public:
  explicit ReplayProgressReport(ProgressReport report) : report_(report) {}
  // On stderr: off when quiet, the bar on a terminal, else status lines
  // (ProgressReport::for_stderr).
  static ReplayProgressReport for_stderr(bool quiet);
  void update(const ReplayProgress& p);
  void finish() { report_.finish(); }

  // Text of one status line (no newline), public for its unit test.
  static std::string status_line(const ReplayProgress& p, double wall_s, double jobs_per_s, double rss_mb);

 private:
  void draw_bar(const ReplayProgress& p, double wall_s);
  ProgressReport report_;
  std::size_t done_at_last_draw_ = 0;
};

}  // namespace vnsim::cli
