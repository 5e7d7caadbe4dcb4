#pragma once
// Trace GPU-type names to GPU catalog names (docs/TRACES.md, "GPU types").
#include <string>
#include <string_view>

namespace vnsim::traces_detail {

// V100M16 and V100M32 become V100; openb's undisclosed G1, G2 and G3 stand in
// as V100 (the disclosed model of its nodes of the same shape); names already
// in the catalog stay; any other name (PAI's MISC) is returned unchanged, so
// that the simulator rejects the job with the type named instead of guessing.
std::string catalog_gpu_type(std::string_view trace_name);

}  // namespace vnsim::traces_detail
