#include "realtime.hpp"

#include <sched.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vnsim::real_exec::mpi {

RealtimeScope::RealtimeScope(int priority, const char* who) {
  if (priority <= 0) return;
  // Without the kernel's real-time throttling (sched_rt_runtime_us = -1), a
  // worker spinning in a collective would keep its core from everything
  // else, the tools that could stop it included.
  long long runtime_us = 0;
  if (std::FILE* f = std::fopen("/proc/sys/kernel/sched_rt_runtime_us", "r")) {
    if (std::fscanf(f, "%lld", &runtime_us) != 1) runtime_us = 0;
    std::fclose(f);
  }
  if (runtime_us < 0) {
    std::fprintf(stderr,
                 "vnexec: --realtime %d: the kernel does not throttle real-time tasks here "
                 "(/proc/sys/kernel/sched_rt_runtime_us is -1), so the %s runs at normal priority\n",
                 priority, who);
    return;
  }
  sched_param old{};
  old_policy_ = sched_getscheduler(0);
  sched_getparam(0, &old);
  old_priority_ = old.sched_priority;
  sched_param p{};
  p.sched_priority = priority;
  if (sched_setscheduler(0, SCHED_RR, &p) == 0) {
    active_ = true;
    return;
  }
  std::fprintf(stderr,
               "vnexec: --realtime %d: the %s cannot run under SCHED_RR (%s; needs root or CAP_SYS_NICE); it "
               "runs at normal priority, and on a loaded machine its timings include waiting for a CPU\n",
               priority, who, std::strerror(errno));
}

RealtimeScope::~RealtimeScope() {
  if (!active_) return;
  sched_param p{};
  p.sched_priority = old_priority_;
  sched_setscheduler(0, old_policy_, &p);
}

}  // namespace vnsim::real_exec::mpi
