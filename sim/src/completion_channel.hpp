#pragma once
// How ring-job actors tell the controller that a job finished: they append
// to `finished` and notify `wake` while holding `mutex`. The controller holds
// the mutex except while it waits, so no notification can be lost.
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim::sim {

struct CompletionChannel {
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr wake = simgrid::s4u::ConditionVariable::create();
  struct Finished {
    JobIndex job;
    int epoch;  // which launch of the job; a preempted launch's report is stale
    // >= 0: the ring handed its job back to the controller (alone on its
    // links again) after this many iterations instead of finishing.
    long long handed_off_after = -1;
  };
  std::vector<Finished> finished;  // in the order the jobs finished

  void report(JobIndex job, int epoch, long long handed_off_after = -1) {
    mutex->lock();
    finished.push_back(Finished{job, epoch, handed_off_after});
    wake->notify_all();
    mutex->unlock();
  }
};

}  // namespace vnsim::sim
