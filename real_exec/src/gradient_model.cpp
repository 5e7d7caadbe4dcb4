#include "vnsim/real_exec/gradient_model.hpp"

#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

namespace vnsim::real_exec {

double gradient_basis_entry(int k, std::size_t j) {
  const double noise =
      static_cast<double>(static_cast<long long>((7 * static_cast<std::size_t>(k) + 3 * j) % 11) - 5);
  return noise + (j % kSignalStride == 0 ? 1.0 : 0.0);
}

int gradient_basis_of(long long sample) {
  // splitmix64's finaliser (Steele et al., "Fast splittable pseudorandom
  // number generators", OOPSLA 2014): neighbouring samples get independent
  // looking vectors.
  auto z = static_cast<std::uint64_t>(sample) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<int>(z % kGradientBasisCount);
}

std::array<long long, kGradientBasisCount> basis_counts(long long first_sample, long long count) {
  std::array<long long, kGradientBasisCount> out{};
  for (long long s = first_sample; s < first_sample + count; ++s)
    ++out[static_cast<std::size_t>(gradient_basis_of(s))];
  return out;
}

void accumulate_samples(std::span<double> grad, long long first_sample, long long count) {
  const auto counts = basis_counts(first_sample, count);
  for (int k = 0; k < kGradientBasisCount; ++k) {
    const auto c = static_cast<double>(counts[static_cast<std::size_t>(k)]);
    if (c == 0) continue;
    for (std::size_t j = 0; j < grad.size(); ++j) grad[j] += c * gradient_basis_entry(k, j);
  }
}

std::vector<long long> virtual_node_batches(long long global_batch, int virtual_nodes) {
  if (virtual_nodes < 1 || global_batch < virtual_nodes)
    throw std::invalid_argument("virtual_node_batches: global batch " + std::to_string(global_batch) +
                                " cannot feed " + std::to_string(virtual_nodes) + " virtual nodes");
  std::vector<long long> out(static_cast<std::size_t>(virtual_nodes), global_batch / virtual_nodes);
  for (long long i = 0; i < global_batch % virtual_nodes; ++i) ++out[static_cast<std::size_t>(i)];
  return out;
}

std::vector<SampleRange> rank_sample_ranges(long long iteration, long long global_batch,
                                            const std::vector<int>& vn_per_rank, int rank) {
  const int v = std::accumulate(vn_per_rank.begin(), vn_per_rank.end(), 0);
  const std::vector<long long> batches = virtual_node_batches(global_batch, v);
  long long first = iteration * global_batch;
  std::size_t vn = 0;
  std::vector<SampleRange> out;
  for (int r = 0; r < static_cast<int>(vn_per_rank.size()); ++r) {
    for (int i = 0; i < vn_per_rank[static_cast<std::size_t>(r)]; ++i, ++vn) {
      if (r == rank) out.push_back(SampleRange{first, batches[vn]});
      first += batches[vn];
    }
  }
  return out;
}

void apply_sgd(std::span<double> params, std::span<const double> grad_sum, long long total_samples,
               double learning_rate) {
  if (params.size() != grad_sum.size()) throw std::invalid_argument("apply_sgd: size mismatch");
  const double scale = learning_rate / static_cast<double>(total_samples);
  for (std::size_t j = 0; j < params.size(); ++j) params[j] -= scale * grad_sum[j];
}

std::vector<double> initial_parameters(std::size_t count) {
  std::vector<double> p(count);
  for (std::size_t j = 0; j < count; ++j) p[j] = static_cast<double>(j % 97) / 97.0;
  return p;
}

std::uint64_t parameter_checksum(std::span<const double> params) {
  std::uint64_t h = 1469598103934665603ULL;
  for (double x : params) {
    unsigned char bytes[sizeof(double)];
    std::memcpy(bytes, &x, sizeof x);
    for (unsigned char b : bytes) {
      h ^= b;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

}  // namespace vnsim::real_exec
