#include "replay_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace vnsim::cli {
namespace {

// Resident set now (not the peak): /proc/self/statm's second field, in pages.
double current_rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long long size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// Share of the submit span the simulated clock has passed, in [0, 1].
double submit_span_fraction(const ReplayProgress& p) {
  const double span = p.last_submit_s - p.first_submit_s;
  if (!(span > 0)) return p.simulated_s >= p.last_submit_s ? 1.0 : 0.0;
  return std::clamp((p.simulated_s - p.first_submit_s) / span, 0.0, 1.0);
}

}  // namespace

ReplayProgressReport ReplayProgressReport::for_stderr(bool quiet) {
  return ReplayProgressReport(ProgressReport::for_stderr(quiet, true));
}

std::string ReplayProgressReport::status_line(const ReplayProgress& p, double wall_s, double jobs_per_s,
                                              double rss_mb) {
  char where[160];
  if (p.simulated_s < p.last_submit_s) {
    std::snprintf(where, sizeof where, "simulated %.0f s of the trace's submit span to %.0f s (%.1f%%)",
                  p.simulated_s, p.last_submit_s, 100 * submit_span_fraction(p));
  } else {
    std::snprintf(where, sizeof where, "simulated %.0f s (every job submitted)", p.simulated_s);
  }
  char line[400];
  std::snprintf(line, sizeof line,
                "vnsim replay: %s, %zu of %zu jobs done, %.1f jobs/s, RSS %.0f MB, wall %.0f s", where,
                p.jobs_done, p.jobs_total, jobs_per_s, rss_mb, wall_s);
  return line;
}

void ReplayProgressReport::update(const ReplayProgress& p) {
  if (!report_.due(p.jobs_done == p.jobs_total)) return;
  const double wall = report_.wall_s();
  if (report_.mode() == ProgressReport::Mode::Bar) {
    draw_bar(p, wall);
  } else {
    const double since = report_.since_last_s();
    const double rate = since > 0 ? static_cast<double>(p.jobs_done - done_at_last_draw_) / since : 0;
    report_.line(status_line(p, wall, rate, current_rss_mb()));
  }
  done_at_last_draw_ = p.jobs_done;
}

// Before the last submission the fraction is that of the submit span and the
// ETA extrapolates the wall time it took; after it, how long the jobs left
// will run is not known, so the bar shows how many are left instead.
void ReplayProgressReport::draw_bar(const ReplayProgress& p, double wall_s) {
  const bool submitting = p.simulated_s < p.last_submit_s;
  const double frac = submitting ? submit_span_fraction(p)
                                 : static_cast<double>(p.jobs_done) /
                                       static_cast<double>(std::max<std::size_t>(1, p.jobs_total));
  char eta[64];
  if (submitting && frac > 0)
    std::snprintf(eta, sizeof eta, "ETA %.0fs to the last submission", wall_s * (1 - frac) / frac);
  else if (submitting)
    std::snprintf(eta, sizeof eta, "ETA unknown");
  else
    std::snprintf(eta, sizeof eta, "all submitted, %zu left", p.jobs_total - p.jobs_done);
  char text[200];
  std::snprintf(text, sizeof text, "sim %.0f s  %zu/%zu jobs  %s   ", p.simulated_s, p.jobs_done,
                p.jobs_total, eta);
  report_.bar(frac, text);
}

}  // namespace vnsim::cli
