#pragma once
// What `vnsim sweep` reports as progress: runs done of the total and an ETA,
// as a bar on a terminal and nothing otherwise; how and when it is shown is
// ProgressReport's (progress_report.hpp).
#include <cstdio>

#include "progress_report.hpp"

namespace vnsim::cli {

class SweepProgress {
 public:
  explicit SweepProgress(bool enabled) : report_(ProgressReport::for_stderr(!enabled, false)) {}
  void update(std::size_t done, std::size_t total) {
    if (total == 0 || !report_.due(done == total)) return;
    const double frac = static_cast<double>(done) / static_cast<double>(total);
    const double elapsed = report_.wall_s();
    char text[120];
    if (done > 0 && done < total)
      std::snprintf(text, sizeof text, "%zu/%zu runs  ETA %.0fs   ", done, total,
                    elapsed * (1 - frac) / frac);
    else
      std::snprintf(text, sizeof text, "%zu/%zu runs  %.0fs elapsed", done, total, elapsed);
    report_.bar(frac, text);
  }
  void finish() { report_.finish(); }

 private:
  ProgressReport report_;
};

}  // namespace vnsim::cli
