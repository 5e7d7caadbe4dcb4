#pragma once
// The median of a sample, as the calibration's step extras and the
// validation's per-segment errors take it: the middle value, or the mean of
// the two middle values at an even size; 0 for an empty sample.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace vnsim::real_exec {

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace vnsim::real_exec
