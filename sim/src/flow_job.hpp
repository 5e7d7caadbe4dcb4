#pragma once
// A job whose traffic runs as SimGrid flows, other than the DP ring
// (ring_job.hpp): parameter-server jobs (ps_job.hpp) and DP x TP x PP layout
// jobs (layout_job.hpp). The controller only needs to preempt them.
#include <algorithm>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <vector>

#include "completion_channel.hpp"
#include "link_registry.hpp"

namespace vnsim::sim {

class FlowJob {
 public:
  virtual ~FlowJob() = default;
  // Iterations done at `now_s`, for a preemption (what the slowest actor has
  // finished).
  virtual long long iterations_done(double now_s) const = 0;
  // Kills the actors still running; nothing is reported on the channel. The
  // object must be kept to the end of the run: In SimGrid 3.32, dropping the last reference to an in-flight
  // comm aborts with "Comm freed before its completion".
  virtual void stop() = 0;
  // After stop() or the job's end: true once no comm is in flight any more;
  // the job's comms are then released and the object may be dropped.
  virtual bool release_if_quiescent() = 0;
};

inline bool activity_is_over(const simgrid::s4u::Activity& a) {
  using State = simgrid::s4u::Activity::State;
  const State st = a.get_state();
  return st == State::FINISHED || st == State::FAILED || st == State::CANCELED;
}

// The actors of one flow job and what they need to be stopped safely.
struct ActorGroup {
  // Raw pointers: an ActorPtr would form a cycle with the actor's code, which
  // holds the job's state. An actor not finished is alive (only stop kills).
  std::vector<simgrid::s4u::Actor*> actors;
  std::vector<char> finished;
  // Each actor's in-flight comms live here, not on its stack, so killing it
  // never drops the last reference to an in-flight comm.
  std::vector<std::vector<simgrid::s4u::CommPtr>> comms;
  bool stopped = false;

  void kill_unfinished() {
    stopped = true;
    for (std::size_t a = 0; a < actors.size(); ++a)
      if (!finished[a]) actors[a]->kill();
    // A comm left waiting in a mailbox by a killed peer stays "started" seen
    // from s4u and would keep the job from being released.
    for (auto& per_actor : comms)
      for (auto& c : per_actor)
        if (c && !activity_is_over(*c)) c->cancel();
  }

  // Drops the comms once none is in flight and reports whether it did. A comm
  // holds its actors, whose code holds the job's state, which holds the comm:
  // until this cycle is cut, every stopped or ended job keeps its actors'
  // stacks mapped, and a long elastic replay runs out of mappings.
  bool release_if_quiescent() {
    for (const auto& per_actor : comms)
      for (const auto& c : per_actor)
        if (c && !activity_is_over(*c)) return false;
    comms.clear();
    return true;
  }
};

// The k of each macro-iteration of a job, decided by the first actor to reach
// it so that every actor sends the same sequence of comms: 1 while the job
// shares a link with another live job and `adaptive` is set (as for rings,
// ring_job.hpp), else k = ceil(iterations / M); the last one gets what is left.
class MacroPlan {
 public:
  // k_contended: the size of a macro-iteration that starts while another
  // job shares one of the job's links (adaptive macro-iterations).
  MacroPlan(long long iterations, long long k, long long k_contended)
      : iterations_(iterations), k_(k), k_contended_(k_contended) {}

  // 0 once every iteration is planned.
  long long size(std::size_t index, bool contended) {
    while (index >= sizes_.size()) {
      if (planned_ >= iterations_) return 0;
      const long long k = std::min(contended ? k_contended_ : k_, iterations_ - planned_);
      sizes_.push_back(k);
      planned_ += k;
    }
    return sizes_[index];
  }

 private:
  long long iterations_;
  long long k_;
  long long k_contended_;
  long long planned_ = 0;
  std::vector<long long> sizes_;
};

}  // namespace vnsim::sim
