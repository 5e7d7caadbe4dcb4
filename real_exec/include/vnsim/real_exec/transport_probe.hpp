#pragma once
// The transport a run really used. At its start, and again at its end, a
// `vnexec run` times the gradient all-reduce of each of its trace's models
// in whole steps on all workers, in the same mpirun launch as its jobs. The
// shared-memory transport's speed varied by up to 2x between launches a few
// minutes apart on the development machine (docs/VALIDATION.md), so links
// calibrated in another launch mispredict a run's all-reduce by that much;
// the start probe is measured before any job runs, so predicting the run
// from it is still a prediction. The end probe says how far the transport
// drifted while the jobs ran.
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/real_exec/calibration.hpp"

namespace vnsim::real_exec {

struct ProbePoint {
  std::string model;
  double bytes = 0;    // the gradient all-reduced per step
  double seconds = 0;  // median span of its all-reduce in a whole step (step_span)
};

struct TransportProbe {
  int workers = 0;
  int repetitions = 0;  // timed steps per model (one more warms up)
  std::vector<ProbePoint> start, end;
};

std::string transport_probe_json(const TransportProbe& probe);
// Throws InputError naming `source` and the field.
TransportProbe parse_transport_probe(const std::string& text, const std::string& source);

// The ring `points` imply on a one-node testbed of `spec` (every worker a
// GPU of its one node): an alpha-beta line through the points' sizes when
// they hold two or more (fit_alpha_beta), or with one size the spec's own
// line scaled through that point, so a single model moves latency and
// bandwidth alike. None when `spec` has more than one node (the probe times
// the intra-node path only) or the points are empty.
std::optional<RingFit> probed_ring(const std::vector<ProbePoint>& points, const ClusterSpec& spec);

// The ring every node's intra link of `spec` gives today: a worker-to-worker
// path crosses two links (docs/CLUSTER_SPEC.md), so the hop latency is twice
// a link's, and the bandwidth is the link's achievable rate.
RingFit testbed_ring(const ClusterSpec& spec);
// Sets every node's intra link so that testbed_ring(spec) is `ring`.
void set_testbed_ring(ClusterSpec& spec, const RingFit& ring);

}  // namespace vnsim::real_exec
