#pragma once
// The pure half of `vnexec calibrate`: fits and the files it writes (a
// cluster spec in the docs/CLUSTER_SPEC.md format and a model profile in the
// core/data/models.json format), so the simulator reads the testbed as is.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/model_catalog.hpp"

namespace vnsim::real_exec {

struct LineFit {
  double intercept = 0;
  double slope = 0;
  double rmse = 0;
};
// Ordinary least squares y = intercept + slope * x; intercept and slope are
// clamped at 0 (a negative step time has no meaning) and the other refitted.
LineFit fit_line(const std::vector<std::pair<double, double>>& points);

// How many rounds `vnexec calibrate` times its batch points in (and a run's
// transport probe its models): at least `repetitions`, and enough that the
// rounds span `min_span_s` when one round takes `round_s` (at most
// kMaxCalibrationRounds).
constexpr double kMinCalibrationSpanS = 0.5;
constexpr int kMaxCalibrationRounds = 10000;
int calibration_rounds(int repetitions, double round_s, double min_span_s = kMinCalibrationSpanS);

// The median of each step's times over `rounds` rounds, each round timing
// every step once in turn (the caller warms them up). Interleaved so that a
// stall of the machine costs each point one or two samples, which the
// median drops: timed one point after another, a small model's 15 steps of
// one point took 9 ms, so one stall took a whole point (docs/VALIDATION.md).
std::vector<double> interleaved_medians(int rounds, const std::vector<std::function<double()>>& steps);

// Ring all-reduce time T = 2(N-1) * (hop_latency + (B/N) / bandwidth) over
// measurements (B bytes, N ranks, T seconds): the bandwidth that fits best
// in least squares, given the measured hop latency.
double fit_ring_bandwidth(const std::vector<std::pair<double, double>>& bytes_and_seconds, int ranks,
                          double hop_latency_s);

// fit_ring_bandwidth that survives a hop latency the ring measurements
// contradict. The latency comes from a ping-pong, the bandwidth from
// all-reduces timed at another moment; on a loaded machine (oversubscribed
// MPI ranks descheduled mid ping-pong) the ping-pong can exceed a whole ring
// step, leaving no transfer time to fit. The latency is then cut to half the
// shortest measured step, so latency and transfer share that step evenly,
// and latency_reduced says so.
struct RingFit {
  double bandwidth_Bps = 0;
  double hop_latency_s = 0;  // the latency the bandwidth was fitted with
  bool latency_reduced = false;
};
RingFit fit_ring(const std::vector<std::pair<double, double>>& bytes_and_seconds, int ranks,
                 double hop_latency_s);

// An all-reduce's time as alpha + beta x bytes, fitted by least squares on
// the relative residual (weights 1 / T^2), so that each message size counts
// alike, as in the validation's MAPE; alpha and beta are clamped at 0 (the
// other refitted). max_relative_error is the worst point's.
struct AlphaBeta {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double max_relative_error = 0;
  double from_bytes = 0;  // the sizes it was fitted over
  double to_bytes = 0;
};
AlphaBeta fit_alpha_beta(const std::vector<std::pair<double, double>>& bytes_and_seconds);

// The fit over the measured sizes within a factor 4 of [lo_bytes, hi_bytes]
// (the gradients the jobs all-reduce), at least the two sizes nearest the
// range: one line over 8 B to MiBs does not fit a shared-memory transport,
// whose small messages are latency-bound and large ones copy-bound.
AlphaBeta fit_alpha_beta_over(const std::vector<std::pair<double, double>>& bytes_and_seconds,
                              double lo_bytes, double hi_bytes);

// The ring over `ranks` whose 2(N-1) (hop_latency + (B/N) / bandwidth)
// equals alpha + beta B: hop latency alpha / 2(N-1), bandwidth
// 2(N-1) / (N beta) (1e15 B/s when beta is 0).
RingFit ring_from_alpha_beta(const AlphaBeta& fit, int ranks);

// A worker-to-worker path on the one-node testbed crosses two links, the
// sender's and the receiver's (docs/CLUSTER_SPEC.md), so a ring hop or a
// point-to-point message pays two link latencies. Calibration's links and
// the transport probe's ring both convert through these two.
constexpr double testbed_link_latency_s(double hop_latency_s) {
  return hop_latency_s / 2;
}
constexpr double testbed_hop_latency_s(double link_latency_s) {
  return 2 * link_latency_s;
}

struct TestbedLinks {
  int workers = 0;
  double link_bandwidth_Bps = 0;  // per worker link: a worker-to-worker path crosses two
  double link_latency_s = 0;      // one traversal; a path pays two
  // Building a segment's communicator and data plane, which is what an
  // in-place resize or a restart costs the executor besides moving state;
  // < 0 = not measured (the simulator's defaults then apply).
  double communicator_setup_s = -1;
};
// One node holding all workers as GPUs of the catalog's reference type.
std::string testbed_cluster_spec_json(const TestbedLinks& links, const std::string& reference_gpu,
                                      const std::string& description);

struct CalibratedModel {
  ModelParams base;  // catalog entry: batch limits and memory are kept
  LineFit compute;   // seconds per micro-batch vs local batch
  int points = 0;
  double gradient_bytes = 0;    // bytes actually all-reduced per step
  double step_overhead_s = 0;   // ModelParams::step_overhead_s
  double compute_jitter_s = 0;  // ModelParams::compute_jitter_s
  double start_charge_s = 0;    // ModelParams::start_charge_s: a segment's open and teardown
};

// What a step costs beyond its micro-batches and its all-reduce, from whole
// steps timed on all workers (vnexec calibrate). Per step s: the leader's
// whole step (control exchange included, as a run logs `seconds`), the
// slowest member's compute and the all-reduce span (step_span), and every
// member's own compute.
struct StepSample {
  double seconds = 0;
  double slowest_compute_s = 0;
  double allreduce_span_s = 0;
  std::vector<double> member_compute_s;
};
struct StepExtras {
  double step_overhead_s = 0;   // median of seconds - slowest compute - span, at least 0
  double compute_jitter_s = 0;  // robust sigma of a member's compute about the step's mean
};
// sigma = 1.4826 x median |c_i - mean_s| x sqrt(N / (N - 1)): the median
// absolute deviation, unbiased for normal compute times and blind to a
// descheduled step; 0 with one member.
StepExtras fit_step_extras(const std::vector<StepSample>& steps);
std::string model_profile_json(const std::vector<CalibratedModel>& models, const std::string& reference_gpu);

}  // namespace vnsim::real_exec
