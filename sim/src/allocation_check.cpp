#include "vnsim/sim/allocation_check.hpp"

#include <algorithm>

namespace vnsim {
namespace {

struct Holding {
  JobIndex job;
  int milli;
};

std::string at(std::size_t index, const AllocationEvent& e) {
  return "event " + std::to_string(index) + " (t=" + std::to_string(e.time_s) + ", job " +
         std::to_string(e.job) + "): ";
}

}  // namespace

std::string first_allocation_error(const std::vector<AllocationEvent>& log, int gpu_count) {
  std::vector<std::vector<Holding>> held(static_cast<std::size_t>(std::max(0, gpu_count)));
  std::vector<int> used(held.size(), 0);
  double last_t = log.empty() ? 0 : log.front().time_s;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const AllocationEvent& e = log[i];
    if (e.time_s < last_t) return at(i, e) + "goes back in time";
    last_t = e.time_s;
    if (e.milli < 1 || e.milli > kGpuMilli)
      return at(i, e) + "share " + std::to_string(e.milli) + " milli is outside 1.." +
             std::to_string(kGpuMilli);
    for (GpuId g : e.gpus) {
      if (g < 0 || g >= gpu_count) return at(i, e) + "GPU " + std::to_string(g) + " does not exist";
      auto& hs = held[static_cast<std::size_t>(g)];
      const auto mine = std::find_if(hs.begin(), hs.end(), [&](const Holding& h) { return h.job == e.job; });
      if (e.taken) {
        if (mine != hs.end()) return at(i, e) + "takes GPU " + std::to_string(g) + ", which it already holds";
        if (used[g] + e.milli > kGpuMilli) {
          std::string others;
          for (const Holding& h : hs)
            others += (others.empty() ? "job " : ", job ") + std::to_string(h.job) + " (" +
                      std::to_string(h.milli) + ")";
          return at(i, e) + "takes " + std::to_string(e.milli) + " milli of GPU " + std::to_string(g) +
                 ", already held by " + others + ": over-committed";
        }
        hs.push_back(Holding{e.job, e.milli});
        used[g] += e.milli;
      } else {
        if (mine == hs.end())
          return at(i, e) + "gives back GPU " + std::to_string(g) + ", which it does not hold";
        if (mine->milli != e.milli)
          return at(i, e) + "gives back " + std::to_string(e.milli) + " milli of GPU " + std::to_string(g) +
                 ", holds " + std::to_string(mine->milli);
        used[g] -= mine->milli;
        hs.erase(mine);
      }
    }
  }
  for (std::size_t g = 0; g < held.size(); ++g)
    if (!held[g].empty())
      return "GPU " + std::to_string(g) + " still held by job " + std::to_string(held[g].front().job) +
             " at the end";
  return "";
}

}  // namespace vnsim
