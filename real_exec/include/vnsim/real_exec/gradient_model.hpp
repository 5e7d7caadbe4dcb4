#pragma once
// The synthetic training problem every backend runs. A sample s contributes
// the gradient basis vector b_{k(s)}, k(s) a hash of s mod K, whose entries
// are small integers, so sums over any grouping of samples are exact in
// double precision. That makes the executor's claims checkable bit for bit:
// virtual-node accumulation equals one big batch, the all-reduce equals the
// sum, and parameters follow the same trajectory whatever the rank set,
// split or resizes.
//
// The basis vectors are a signal shared by all of them (1 on every
// kSignalStride-th entry) plus zero-mean noise (entries -5..5, each value
// once per entry over the K vectors), so a batch's gradient has the
// statistics of real SGD: true gradient G = the signal, per-sample noise
// variance tr(Sigma) = 10 per entry, noise scale tr(Sigma) / |G|^2 =
// 10 x kSignalStride samples (McCandlish et al., "An Empirical Model of
// Large-Batch Training", 2018). The hash draws each sample's vector
// independently of its neighbours, so the noise of a batch of B samples
// shrinks as 1/B, as Pollux's statistical efficiency assumes.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace vnsim::real_exec {

constexpr int kGradientBasisCount = 11;
constexpr std::size_t kSignalStride = 64;

// Entry j of basis vector k: an integer in [-5, 6].
double gradient_basis_entry(int k, std::size_t j);

// The basis vector sample s contributes.
int gradient_basis_of(long long sample);

// How many samples of [first, first + count) use each basis vector.
std::array<long long, kGradientBasisCount> basis_counts(long long first_sample, long long count);

// grad += sum of the gradients of samples [first, first + count).
void accumulate_samples(std::span<double> grad, long long first_sample, long long count);

// Local batches of the V virtual nodes of one step: global_batch / V each,
// the first global_batch mod V getting one more (uneven when V does not
// divide the batch; weighted averaging keeps the mean exact).
std::vector<long long> virtual_node_batches(long long global_batch, int virtual_nodes);

// The samples one rank processes in step `iteration`: one contiguous range
// per virtual node it runs.
struct SampleRange {
  long long first = 0;
  long long count = 0;
};
// vn_per_rank[r] virtual nodes on rank r, in order; returns rank `rank`'s ranges.
std::vector<SampleRange> rank_sample_ranges(long long iteration, long long global_batch,
                                            const std::vector<int>& vn_per_rank, int rank);

// SGD step on the weighted average: params -= lr * grad_sum / total_samples.
// Dividing the summed gradient by the total sample count weights each rank's
// mean by its sample count (heterogeneous split).
void apply_sgd(std::span<double> params, std::span<const double> grad_sum, long long total_samples,
               double learning_rate);

// Deterministic starting parameters, the same on every rank.
std::vector<double> initial_parameters(std::size_t count);

// FNV-1a over the bytes of the parameters: equal iff bitwise equal (modulo
// hash collisions), cheap to compare across ranks.
std::uint64_t parameter_checksum(std::span<const double> params);

}  // namespace vnsim::real_exec
