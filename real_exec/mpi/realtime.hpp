#pragma once
// `--realtime PRIORITY`: the measured work of vnexec under the kernel's
// round-robin real-time class (SCHED_RR), so that on a shared machine the
// workers are not descheduled for other processes while they compute or
// spin inside a collective (docs/VALIDATION.md, "Honest on a shared
// machine"). Only the calling thread changes, and only while the scope
// lives: MPI_Init and MPI_Finalize, where a rank spins for partners that
// may not have the CPU, stay at normal priority.
namespace vnsim::real_exec::mpi {

class RealtimeScope {
 public:
  // priority 0: does nothing. Otherwise SCHED_RR at `priority`; when the
  // system does not permit it, or does not throttle real-time tasks, prints
  // one line naming `who` and the reason to stderr and leaves the thread as
  // it was.
  RealtimeScope(int priority, const char* who);
  ~RealtimeScope();
  RealtimeScope(const RealtimeScope&) = delete;
  RealtimeScope& operator=(const RealtimeScope&) = delete;
  bool active() const { return active_; }

 private:
  bool active_ = false;
  int old_policy_ = 0;
  int old_priority_ = 0;
};

}  // namespace vnsim::real_exec::mpi
