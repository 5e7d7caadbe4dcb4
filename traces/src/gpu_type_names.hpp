#pragma once
// Trace GPU-type names to GPU catalog names (docs/TRACES.md, "GPU types").
#include <string>
#include <string_view>

namespace vnsim::traces_detail {

// V100M16 and V100M32 become V100; names already in the catalog stay; any
// other name (PAI's MISC, openb's G2/G3) is returned unchanged, so that the
// simulator rejects the job with the type named instead of guessing.
std::string catalog_gpu_type(std::string_view trace_name);

}  // namespace vnsim::traces_detail
