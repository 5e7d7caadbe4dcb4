#pragma once
// Fits a cluster spec's link efficiencies (docs/CLUSTER_SPEC.md,
// "Calibration knobs") to measured step times, such as the Pollux profiles'
// placements.csv: each row is one model's step on a placement (GPUs per
// node) at a local batch. `vnsim calibrate` drives it.
#include <map>
#include <string>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

struct MeasuredStep {
  std::string model;               // catalog model
  std::vector<int> gpus_per_node;  // e.g. {2, 2}: two nodes, two GPUs each
  int local_batch = 1;             // samples per GPU and step
  double step_s = 0;               // measured step time
  std::string where;               // "file:line", for errors
};

// One model's fitted overlap fraction f (ModelParams::overlap_fraction: step
// = (1 - f) * compute + max(f * compute, all-reduce)), over its rows with
// >= 2 GPUs.
struct OverlapFit {
  std::string model;
  std::size_t rows = 0;
  double overlap_fraction = 0;
  // Mean |simulated / measured - 1| of these rows with the catalog's f and
  // the spec's efficiencies, and with the fitted f and efficiencies.
  double error_before = 0, error_after = 0;
};

struct LinkFit {
  double intra_efficiency = 1;  // fitted on the single-node rows with >= 2 GPUs
  double nic_efficiency = 1;    // fitted on the multi-node rows, intra fixed
  std::size_t intra_rows = 0;
  std::size_t nic_rows = 0;
  // Mean |simulated / measured - 1| over the rows of each class, with the
  // spec's own efficiencies and with the fitted ones.
  double intra_error_before = 0, intra_error_after = 0;
  double nic_error_before = 0, nic_error_after = 0;
  std::vector<OverlapFit> overlaps;  // one per model with rows, only when fitted
};

// The simulated step time of a row on an idle `spec` (perf model,
// consolidated on the first nodes). Throws InputError naming row.where when
// the model is unknown or the placement does not fit the spec.
double simulated_step_s(const ClusterSpec& spec, const MeasuredStep& row, const GpuCatalog& gpus,
                        const ModelCatalog& models);

// Every node's intra.efficiency and nic_efficiency set to the given values.
ClusterSpec with_link_efficiencies(ClusterSpec spec, double intra_efficiency, double nic_efficiency);

// Each efficiency in [0.001, 1] minimising the mean relative error of its
// class's rows (single-node rows with >= 2 GPUs for intra, multi-node rows
// for the NIC, whose rings also cross intra links): a log-spaced scan, then
// a golden-section search around its best point. A class without rows keeps
// the spec's value. Single-GPU rows do not depend on links and are ignored.
// With fit_overlap, each model's overlap fraction is fitted too: f in [0, 1]
// minimising the mean relative error of the model's rows with >= 2 GPUs, by a
// scan and a golden-section search. The efficiencies and the fractions depend
// on each other, so the fit alternates (intra, NIC, every model's f),
// starting from the catalog's fractions, until a round moves no fraction by
// more than 0.001 and no efficiency by more than 0.1% (at most
// kMaxOverlapRounds rounds); the errors "after" are those of the last round.
inline constexpr int kMaxOverlapRounds = 30;
LinkFit fit_link_efficiencies(const ClusterSpec& spec, const std::vector<MeasuredStep>& rows,
                              const GpuCatalog& gpus, const ModelCatalog& models, bool fit_overlap = false);

// The fitted overlap fraction of each model of fit.overlaps.
std::map<std::string, double> fitted_overlaps(const LinkFit& fit);

// Reads `dir`/<model>/placements.csv (header placement,local_bsz,step_time
// [,sync_time]; placement = GPUs per node as digits, e.g. "22") for every
// sub-folder whose name is a catalog model. Errors name file:line.
std::vector<MeasuredStep> read_pollux_placements(const std::string& dir, const ModelCatalog& models);

}  // namespace vnsim
