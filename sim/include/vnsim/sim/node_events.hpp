#pragma once
// The node-event file of `vnsim replay --node-events` (docs/SPOT.md): CSV
// with the header `time_s,node,down_s`, one revocation or failure per row,
// the node named as in the cluster spec. Blank lines and lines starting with
// '#' are ignored.
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {

// `source` names the text in error messages (file:line: reason).
std::vector<NodeEvent> parse_node_events(const std::string& text, const std::string& source,
                                         const Cluster& cluster);
std::vector<NodeEvent> read_node_events(const std::string& path, const Cluster& cluster);

}  // namespace vnsim
