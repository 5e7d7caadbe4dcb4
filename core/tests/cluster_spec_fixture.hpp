#pragma once
// A small valid cluster spec shared by the spec tests: two racks exercising
// defaults, per-node overrides and per-GPU types.
#include <nlohmann/json.hpp>

namespace vnsim::testing {

inline nlohmann::json base_spec() {
  return R"({
    "name": "t",
    "defaults": {
      "intra": {"kind": "nvlink", "bandwidth_gbps": 800, "latency_us": 0.5},
      "nic": {"bandwidth_gbps": 100, "latency_us": 2}
    },
    "racks": [
      {"name": "ra", "nodes": [
        {"name": "a0", "gpus": 4, "gpu_type": "V100"},
        {"name": "a1", "gpus": 2, "gpu_type": "T4"}]},
      {"name": "rb", "oversubscription": 4, "uplink_latency_us": 3, "nodes": [
        {"name": "b0", "gpu_types": ["A100", "T4"],
         "intra": {"kind": "pcie", "bandwidth_gbps": 64}, "nic": {"count": 2}}]}
    ]
  })"_json;
}

}  // namespace vnsim::testing
