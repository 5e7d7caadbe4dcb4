#include "progress_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "vnsim/core/error.hpp"

namespace vnsim::cli {
namespace {

constexpr double kDefaultStatusIntervalS = 10;
constexpr double kBarRedrawS = 0.2;
constexpr int kBarWidth = 30;

}  // namespace

ProgressReport::ProgressReport(Mode mode, double interval_s, std::FILE* out)
    : mode_(mode), interval_s_(interval_s), out_(out) {}

ProgressReport ProgressReport::for_stderr(bool quiet, bool status_lines) {
  double interval = kDefaultStatusIntervalS;
  if (const char* env = std::getenv("VNSIM_STATUS_INTERVAL_S"); env != nullptr && status_lines) {
    char* end = nullptr;
    interval = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(interval >= 0))
      throw InputError(std::string("VNSIM_STATUS_INTERVAL_S: expected seconds >= 0, got '") + env + "'");
  }
  Mode mode = Mode::Off;
  if (!quiet) mode = isatty(STDERR_FILENO) ? Mode::Bar : (status_lines ? Mode::StatusLines : Mode::Off);
  return ProgressReport(mode, interval);
}

double ProgressReport::wall_s() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

bool ProgressReport::due(bool done) const {
  const double wall = wall_s();
  switch (mode_) {
    case Mode::Off:
      return false;
    case Mode::Bar:
      return last_draw_s_ < 0 || wall - last_draw_s_ >= kBarRedrawS || done;
    case Mode::StatusLines:
      return wall - std::max(0.0, last_draw_s_) >= interval_s_;
  }
  return false;
}

double ProgressReport::since_last_s() const {
  return wall_s() - std::max(0.0, last_draw_s_);
}

void ProgressReport::bar(double fraction, const std::string& text) {
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kBarWidth);
  std::fprintf(out_, "\r[%.*s%*s] %s", filled, "##############################", kBarWidth - filled, "",
               text.c_str());
  std::fflush(out_);
  drew_bar_ = true;
  last_draw_s_ = wall_s();
}

void ProgressReport::line(const std::string& text) {
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
  last_draw_s_ = wall_s();
}

void ProgressReport::finish() {
  if (drew_bar_) std::fprintf(out_, "\n");
}

}  // namespace vnsim::cli
