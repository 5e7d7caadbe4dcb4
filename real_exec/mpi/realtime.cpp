#include "realtime.hpp"

#include <sched.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vnsim::real_exec::mpi {

RealtimeScope::RealtimeScope(int priority, const char* who) {
  if (priority <= 0) return;
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
