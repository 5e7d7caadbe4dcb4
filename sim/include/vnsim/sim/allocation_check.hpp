#pragma once
// The end-to-end occupancy invariant, checked on a replay's allocation log:
// no GPU's summed share ever exceeds kGpuMilli (with whole-GPU jobs only:
// no GPU is held by two jobs), only a holder gives a GPU back, and every GPU
// is given back by the end.
#include <string>
#include <vector>

#include "vnsim/sim/replay.hpp"

namespace vnsim {

// Replays the log in order. Returns "" when it is sound, else the first
// violation, naming the event, the GPU and the jobs involved.
std::string first_allocation_error(const std::vector<AllocationEvent>& log, int gpu_count);

}  // namespace vnsim
