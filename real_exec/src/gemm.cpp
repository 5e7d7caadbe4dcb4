#include "vnsim/real_exec/gemm.hpp"

#include <algorithm>
#include <cmath>

namespace vnsim::real_exec {
namespace {
constexpr int kBlock = 32;

void gemm_rows(int n, int row_begin, int row_end, const double* a, const double* b, double* c) {
  for (int i0 = row_begin; i0 < row_end; i0 += kBlock)
    for (int k0 = 0; k0 < n; k0 += kBlock)
      for (int j0 = 0; j0 < n; j0 += kBlock) {
        const int i1 = std::min(i0 + kBlock, row_end), k1 = std::min(k0 + kBlock, n),
                  j1 = std::min(j0 + kBlock, n);
        for (int i = i0; i < i1; ++i)
          for (int k = k0; k < k1; ++k) {
            const double aik = a[i * n + k];
            for (int j = j0; j < j1; ++j) c[i * n + j] += aik * b[k * n + j];
          }
      }
}
}  // namespace

void blocked_gemm(int n, const double* a, const double* b, double* c) {
  gemm_rows(n, 0, n, a, b, c);
}

GemmWorkload::GemmWorkload(int n)
    : n_(n), a_(static_cast<std::size_t>(n) * n), b_(a_.size()), c_(a_.size(), 0.0) {
  for (std::size_t i = 0; i < a_.size(); ++i) {
    a_[i] = static_cast<double>(i % 13) / 13.0;
    b_[i] = static_cast<double>(i % 7) / 70.0;
  }
}

double GemmWorkload::run(double flops) {
  const double per_row = 2.0 * n_ * n_;  // one output row of one GEMM
  auto rows = static_cast<long long>(std::llround(flops / per_row));
  while (rows > 0) {
    const int now = static_cast<int>(std::min<long long>(rows, n_));
    gemm_rows(n_, 0, now, a_.data(), b_.data(), c_.data());
    rows -= now;
  }
  // Keep C bounded so repeated accumulation never overflows to inf.
  const double probe = c_[0];
  if (std::abs(probe) > 1e12) std::fill(c_.begin(), c_.end(), 0.0);
  return probe;
}

}  // namespace vnsim::real_exec
