#include "interrupt_watcher.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "vnsim/sweep/run_executor.hpp"

namespace vnsim::cli {

void watch_interrupts(std::function<void(int)> on_signal, bool with_sweep_parent) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set, with_sweep_parent, on_signal = std::move(on_signal)] {
    if (with_sweep_parent) die_with_sweep_parent();
    int signo = 0;
    while (sigwait(&set, &signo) != 0) {
    }
    on_signal(signo);
  }).detach();
}

int interrupt_exit_code(int signo) {
  return 128 + signo;
}

const char* signal_name(int signo) {
  return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "a signal";
}

void die_with_sweep_parent() {
  const char* parent = std::getenv(sweep::kParentPidEnv);
  if (parent == nullptr || *parent == '\0') return;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  // The parent may have died before prctl: then we were re-parented already.
  if (std::to_string(::getppid()) != parent) ::raise(SIGTERM);
}

}  // namespace vnsim::cli

namespace vnsim::cli {

void die_with_parent() {
  const pid_t parent = ::getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::raise(SIGKILL);
}

}  // namespace vnsim::cli
