#pragma once
// Which pairs of job classes Gavel's space-sharing LP may co-locate, and on
// which GPU types: only where sharing helps, and at most a few partners per
// class so the LP stays small (docs/POLICIES.md, "Gavel").
#include <cstddef>
#include <vector>

#include "vnsim/policies/gavel_lp.hpp"

namespace vnsim {

struct GavelPairCandidate {
  std::size_t a = 0, b = 0;  // classes, a <= b
  int type = 0;
  double fa = 0, fb = 0;  // fraction of its alone rate a keeps next to b, and b next to a
};

// `classes`: one row per class of interchangeable jobs (throughput, scale,
// type_gpus); family[c] and copies[c] its interference family and job count.
// A pair qualifies on type j when both classes run there with the same
// scale, both fractions are > 0 and they sum to > 1 (packing beats time
// slicing). Each class keeps its `partners_per_class` best partners by the
// largest such sum over types (ties: lower class index); a pair stays when
// either class keeps it.
std::vector<GavelPairCandidate> gavel_pair_candidates(const GavelProblem& classes,
                                                      const std::vector<int>& family,
                                                      const std::vector<int>& copies,
                                                      const GavelSharing& sharing);

// Turns z, the summed time of all job pairs of one class pair on `type`,
// into a few job pairs with the same time per job: (same ? 2 : 1) z / |a|
// for each job of a, z / |b| for each job of b (same: a is b). Equal shares
// over all |a| |b| job pairs would give each a tiny X, and the round
// mechanism's priority X / time-share would then rank pairs below every
// single job; few pairs with larger X are as close to an LP vertex as
// Gavel's job-level LP gives. A class with itself: a cycle (0,1), (1,2),
// ..., (n-1,0) at z / n each (one pair at z when n = 2); two classes: the
// north-west-corner rule, at most |a| + |b| - 1 pairs.
void spread_pair_time(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b, bool same,
                      int type, double z, std::vector<GavelPairShare>& out);

}  // namespace vnsim
