#pragma once
// Compute emulation on the CPU: real matrix multiplications whose flop count
// matches the model's work per micro-batch (scaled, see docs/REAL_EXEC.md).
#include <vector>

namespace vnsim::real_exec {

// C += A * B for n x n row-major matrices, cache-blocked.
void blocked_gemm(int n, const double* a, const double* b, double* c);

// Runs GEMMs of a fixed size until about `flops` floating-point operations
// are done (2 n^3 per GEMM, the last one a partial row block), and returns
// one element of the result so the work cannot be optimised away.
class GemmWorkload {
 public:
  explicit GemmWorkload(int n = 64);
  double run(double flops);
  int n() const { return n_; }

 private:
  int n_;
  std::vector<double> a_, b_, c_;
};

}  // namespace vnsim::real_exec
