#pragma once
// Sweep progress on stderr: a redrawn bar with an ETA on a terminal, nothing
// when stderr is a file or pipe.
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace vnsim::cli {

class SweepProgress {
 public:
  explicit SweepProgress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}
  void update(std::size_t done, std::size_t total) {
    if (!enabled_ || total == 0) return;
    constexpr int kWidth = 30;
    const double frac = static_cast<double>(done) / static_cast<double>(total);
    const int filled = static_cast<int>(frac * kWidth);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu runs  ", filled, "##############################",
                 kWidth - filled, "", done, total);
    if (done > 0 && done < total)
      std::fprintf(stderr, "ETA %.0fs   ", elapsed * (1 - frac) / frac);
    else
      std::fprintf(stderr, "%.0fs elapsed", elapsed);
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
