#include "gavel_pairs.hpp"

#include <algorithm>
#include <cstddef>
#include <set>
#include <utility>

namespace vnsim {
namespace {

double fraction_of(const GavelSharing& s, std::size_t type, int f, int g) {
  if (f < 0 || g < 0 || type >= s.fraction.size()) return 0;
  const auto& by_family = s.fraction[type];
  if (static_cast<std::size_t>(f) >= by_family.size() || static_cast<std::size_t>(g) >= by_family[f].size())
    return 0;
  return by_family[f][g];
}

}  // namespace

std::vector<GavelPairCandidate> gavel_pair_candidates(const GavelProblem& classes,
                                                      const std::vector<int>& family,
                                                      const std::vector<int>& copies,
                                                      const GavelSharing& sharing) {
  const std::size_t n = classes.throughput.size();
  const std::size_t types = classes.type_gpus.size();
  // The pair's qualifying types, with the fractions (empty: never shares).
  auto qualify = [&](std::size_t a, std::size_t b) {
    std::vector<GavelPairCandidate> out;
    if (family[a] < 0 || family[b] < 0 || classes.scale[a] != classes.scale[b] || (a == b && copies[a] < 2))
      return out;
    for (std::size_t j = 0; j < types; ++j) {
      if (!(classes.throughput[a][j] > 0) || !(classes.throughput[b][j] > 0) ||
          classes.scale[a] > classes.type_gpus[j])
        continue;
      const double fa = fraction_of(sharing, j, family[a], family[b]);
      const double fb = fraction_of(sharing, j, family[b], family[a]);
      if (fa > 0 && fb > 0 && fa + fb > 1)
        out.push_back(GavelPairCandidate{a, b, static_cast<int>(j), fa, fb});
    }
    return out;
  };
  // best[c]: (-best combined fraction over types, partner) of c's qualifying
  // partners; only the first `cap` of each are kept.
  const std::size_t cap = static_cast<std::size_t>(std::max(0, sharing.partners_per_class));
  std::vector<std::vector<std::pair<double, std::size_t>>> best(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a; b < n; ++b) {
      double top = 0;
      for (const GavelPairCandidate& c : qualify(a, b)) top = std::max(top, c.fa + c.fb);
      if (!(top > 0)) continue;
      best[a].emplace_back(-top, b);
      if (b != a) best[b].emplace_back(-top, a);
    }
  std::set<std::pair<std::size_t, std::size_t>> kept;
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t keep = std::min(cap, best[c].size());
    std::partial_sort(best[c].begin(), best[c].begin() + static_cast<std::ptrdiff_t>(keep), best[c].end());
    for (std::size_t i = 0; i < keep; ++i) kept.insert(std::minmax(c, best[c][i].second));
  }
  std::vector<GavelPairCandidate> out;
  for (const auto& [a, b] : kept)
    for (const GavelPairCandidate& c : qualify(a, b)) out.push_back(c);
  return out;
}

void spread_pair_time(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b, bool same,
                      int type, double z, std::vector<GavelPairShare>& out) {
  // CLP's zero tolerance leaves tiny positive values that are no allocation.
  constexpr double kZero = 1e-9;
  auto add = [&](std::size_t m, std::size_t k, double x) {
    if (x > kZero) out.push_back(GavelPairShare{std::min(m, k), std::max(m, k), type, std::min(x, 1.0)});
  };
  if (!(z > kZero)) return;  // also what keeps the corner walk below moving on
  if (same) {
    const std::size_t n = a.size();
    if (n == 2) add(a[0], a[1], z);
    if (n > 2)
      for (std::size_t i = 0; i < n; ++i) add(a[i], a[(i + 1) % n], z / static_cast<double>(n));
    return;
  }
  if (a.empty() || b.empty()) return;
  const double supply = z / static_cast<double>(a.size()), demand = z / static_cast<double>(b.size());
  double left_a = supply, left_b = demand;
  std::size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    const double x = std::min(left_a, left_b);
    add(a[i], b[k], x);
    left_a -= x;
    left_b -= x;
    // x exhausts one side exactly; rounding may leave the other a remainder
    // that is no time, and then both move on.
    if (left_a <= kZero * supply) {
      ++i;
      left_a = supply;
    }
    if (left_b <= kZero * demand) {
      ++k;
      left_b = demand;
    }
  }
}

}  // namespace vnsim
