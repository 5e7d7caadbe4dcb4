#include "replay_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "vnsim/core/error.hpp"

namespace vnsim::cli {
namespace {

constexpr double kDefaultStatusIntervalS = 10;
constexpr double kBarRedrawS = 0.2;

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

ReplayProgressReport::ReplayProgressReport(Mode mode, double interval_s, std::FILE* out)
    : mode_(mode), interval_s_(interval_s), out_(out) {}

ReplayProgressReport ReplayProgressReport::for_stderr(bool quiet) {
  double interval = kDefaultStatusIntervalS;
  if (const char* env = std::getenv("VNSIM_STATUS_INTERVAL_S")) {
    char* end = nullptr;
    interval = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(interval >= 0))
      throw InputError(std::string("VNSIM_STATUS_INTERVAL_S: expected seconds >= 0, got '") + env + "'");
  }
  const Mode mode = quiet ? Mode::Off : (isatty(STDERR_FILENO) ? Mode::Bar : Mode::StatusLines);
  return ReplayProgressReport(mode, interval);
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
  if (mode_ == Mode::Off) return;
  const double wall = std::chrono::duration<double>(Clock::now() - start_).count();
  if (mode_ == Mode::Bar) {
    if (last_draw_s_ >= 0 && wall - last_draw_s_ < kBarRedrawS && p.jobs_done != p.jobs_total) return;
    draw_bar(p, wall);
  } else {
    if (wall - std::max(0.0, last_draw_s_) < interval_s_) return;
    const double since = wall - std::max(0.0, last_draw_s_);
    const double rate = since > 0 ? static_cast<double>(p.jobs_done - done_at_last_draw_) / since : 0;
    std::fprintf(out_, "%s\n", status_line(p, wall, rate, current_rss_mb()).c_str());
    std::fflush(out_);
  }
  last_draw_s_ = wall;
  done_at_last_draw_ = p.jobs_done;
}

// Before the last submission the fraction is that of the submit span and the
// ETA extrapolates the wall time it took; after it, how long the jobs left
// will run is not known, so the bar shows how many are left instead.
void ReplayProgressReport::draw_bar(const ReplayProgress& p, double wall_s) {
  const int width = 30;
  const bool submitting = p.simulated_s < p.last_submit_s;
  const double frac = submitting ? submit_span_fraction(p)
                                 : static_cast<double>(p.jobs_done) /
                                       static_cast<double>(std::max<std::size_t>(1, p.jobs_total));
  const int filled = static_cast<int>(frac * width);
  char eta[64];
  if (submitting && frac > 0)
    std::snprintf(eta, sizeof eta, "ETA %.0fs to the last submission", wall_s * (1 - frac) / frac);
  else if (submitting)
    std::snprintf(eta, sizeof eta, "ETA unknown");
  else
    std::snprintf(eta, sizeof eta, "all submitted, %zu left", p.jobs_total - p.jobs_done);
  std::fprintf(out_, "\r[%.*s%*s] sim %.0f s  %zu/%zu jobs  %s   ", filled, "##############################",
               width - filled, "", p.simulated_s, p.jobs_done, p.jobs_total, eta);
  std::fflush(out_);
  drew_bar_ = true;
}

void ReplayProgressReport::finish() {
  if (drew_bar_) std::fprintf(out_, "\n");
}

}  // namespace vnsim::cli
