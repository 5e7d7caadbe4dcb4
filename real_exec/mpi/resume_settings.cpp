// The settings of a resumed run are the killed attempt's, from the
// run_config.json it wrote, so both attempts execute the same run.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "options.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim::real_exec::mpi {

void load_resume_settings(Options& o) {
  namespace fs = std::filesystem;
  const fs::path run = o.resume;
  const fs::path path = run / "run_config.json";
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot read (--resume needs the folder of a vnexec run)");
  const auto cfg = nlohmann::json::parse(in, nullptr, false);
  if (cfg.is_discarded() || !cfg.is_object()) throw InputError(path.string() + ": not a JSON object");
  try {
    o.trace = (run / cfg.at("trace").get<std::string>()).string();
    o.time_scale = 1.0;  // the executed trace already holds executor times
    const std::string cluster = cfg.at("cluster").get<std::string>();
    o.cluster = fs::exists(run / cluster) ? (run / cluster).string() : cluster;
    if (cfg.contains("profile")) o.profile = (run / cfg.at("profile").get<std::string>()).string();
    if (cfg.contains("noise")) o.noise = (run / cfg.at("noise").get<std::string>()).string();
    if (cfg.contains("vc_quotas")) {
      o.vc_quotas = (run / cfg.at("vc_quotas").get<std::string>()).string();
      o.vc_borrow = cfg.at("vc_borrow").get<bool>();
    }
    o.policy = cfg.at("policy").get<std::string>();
    o.policy_params = cfg.at("policy_params").get<PolicyParams>();
    o.backend = cfg.at("backend").get<std::string>();
    o.scale.flops_per_reference_second = cfg.at("compute_scale").get<double>();
    o.scale.gradient_fraction = cfg.at("gradient_fraction").get<double>();
    o.checkpoint_every = cfg.at("checkpoint_every").get<long long>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path.string() + ": a setting is missing or has the wrong type (" + e.what() + ")");
  }
}

}  // namespace vnsim::real_exec::mpi
