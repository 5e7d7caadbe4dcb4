#pragma once
// Progress on stderr for long runs: a redrawn bar on a terminal, and nothing
// when stderr is a file or pipe (CI logs stay readable).
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace vnsim::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}
  void update(std::size_t done, std::size_t total) {
    if (!enabled_ || total == 0) return;
    const int width = 40;
    const double frac = static_cast<double>(done) / static_cast<double>(total);
    const int filled = static_cast<int>(frac * width);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    std::fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %zu/%zu jobs  ETA %.0fs ", filled,
                 "########################################", width - filled, "", 100 * frac, done, total,
                 eta);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace vnsim::cli
