#include "calibrate_command.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/embedded.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/link_calibration.hpp"
#include "vnsim/core/text_file.hpp"

namespace vnsim::cli {
namespace {

// The spec's JSON text: an embedded preset or a file.
std::string spec_text(const std::string& preset_or_path) {
  if (auto text = embedded_file("cluster-" + preset_or_path + ".json")) return std::string(*text);
  return read_text_file(preset_or_path);
}

// The spec with the fitted efficiencies in `defaults.intra` and
// `defaults.nic`. Node-level link settings would override them, so a spec
// with any is refused rather than written half-calibrated.
std::string calibrated_json(const std::string& text, const std::string& source, const LinkFit& fit) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
  for (const auto& rack : doc.at("racks"))
    for (const auto& node : rack.at("nodes"))
      if (node.contains("intra") || node.contains("nic"))
        throw InputError(source + ": a node sets its own intra or nic links; calibrate writes defaults only");
  const auto round3 = [](double v) { return std::round(v * 1000) / 1000; };
  doc["defaults"]["intra"]["efficiency"] = round3(fit.intra_efficiency);
  doc["defaults"]["nic"]["efficiency"] = round3(fit.nic_efficiency);
  return doc.dump(2) + "\n";
}

// The embedded models.json with each fitted model's overlap_fraction set
// (rounded to 0.001); every other field as it is.
std::string models_json_with_overlaps(const LinkFit& fit) {
  const auto text = embedded_file("models.json");
  if (!text) throw std::logic_error("models.json is not embedded");
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(*text);
  for (const OverlapFit& o : fit.overlaps)
    doc.at("models").at(o.model)["overlap_fraction"] = std::round(o.overlap_fraction * 1000) / 1000;
  return doc.dump(2) + "\n";
}

}  // namespace

const char* calibrate_usage() {
  return "vnsim calibrate --cluster PRESET|SPEC.json --pollux-profiles DIR [--fit-overlap] [--out "
         "SPEC.json]\n"
         "                [--models-out MODELS.json]\n";
}

int run_calibrate_command(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: %s\n"
          "Fits the cluster spec's link efficiencies (defaults.intra.efficiency, defaults.nic.efficiency;\n"
          "docs/CLUSTER_SPEC.md, \"Calibration knobs\") to measured step times: DIR/<model>/placements.csv "
          "of\n"
          "the Pollux profiles (placement = GPUs per node, local_bsz, step_time), for every catalog model.\n"
          "Intra-node efficiency from the single-node rows with >= 2 GPUs, then the NIC's from the "
          "multi-node\n"
          "rows, each minimising the mean |simulated / measured - 1| of the perf model's step time.\n"
          "With --fit-overlap, also each model's overlap_fraction f (step = (1-f)*compute + "
          "max(f*compute, all-reduce))\n"
          "on its rows with >= 2 GPUs, alternating with the efficiencies for a few rounds.\n"
          "Prints the fit and its errors; --out writes the spec with the fitted efficiencies, --models-out "
          "the\n"
          "built-in models.json with the fitted overlap fractions (needs --fit-overlap).\n",
          calibrate_usage());
      return 0;
    }
  const Args args(argv, {"--cluster", "--pollux-profiles", "--out", "--models-out"}, {"--fit-overlap"});
  const bool fit_overlap = args.has("--fit-overlap");
  if (args.get("--models-out") && !fit_overlap) throw InputError("--models-out needs --fit-overlap");
  const std::string cluster = args.require("--cluster");
  const std::string profiles = args.require("--pollux-profiles");
  const ClusterSpec spec = load_cluster_spec(cluster);
  const auto rows = read_pollux_placements(profiles, ModelCatalog::builtin());
  const LinkFit fit =
      fit_link_efficiencies(spec, rows, GpuCatalog::builtin(), ModelCatalog::builtin(), fit_overlap);
  std::printf("rows: %zu single-node (>= 2 GPUs), %zu multi-node\n", fit.intra_rows, fit.nic_rows);
  std::printf("intra efficiency: %.3f (mean |simulated/measured - 1|: %.1f%% -> %.1f%%)\n",
              fit.intra_efficiency, 100 * fit.intra_error_before, 100 * fit.intra_error_after);
  std::printf("nic efficiency:   %.3f (mean |simulated/measured - 1|: %.1f%% -> %.1f%%)\n",
              fit.nic_efficiency, 100 * fit.nic_error_before, 100 * fit.nic_error_after);
  for (const OverlapFit& o : fit.overlaps)
    std::printf("overlap %-12s f = %.3f over %zu rows (mean |simulated/measured - 1|: %.1f%% -> %.1f%%)\n",
                o.model.c_str(), o.overlap_fraction, o.rows, 100 * o.error_before, 100 * o.error_after);
  if (const auto out = args.get("--models-out")) {
    const std::string json = models_json_with_overlaps(fit);
    ModelCatalog::parse(json, *out);  // what is written must load
    std::ofstream f(*out, std::ios::binary);
    f << json;
    if (!f) throw InputError(*out + ": cannot write");
    std::printf("wrote %s\n", out->c_str());
  }
  if (const auto out = args.get("--out")) {
    const std::string json = calibrated_json(spec_text(cluster), cluster, fit);
    parse_cluster_spec(json, *out);  // what is written must load
    std::ofstream f(*out, std::ios::binary);
    f << json;
    if (!f) throw InputError(*out + ": cannot write");
    std::printf("wrote %s\n", out->c_str());
  }
  return 0;
}

}  // namespace vnsim::cli
