#pragma once
// Clean ends on SIGINT and SIGTERM. The replay runs SimGrid, which installs
// its own SIGINT handler (it prints "CTRL-C pressed" and exits 1) and runs
// the controller inside an actor, where a handler could do almost nothing
// safely. Instead the signals are blocked in every thread and one watcher
// thread takes them with sigwait(), so no handler runs at all and the
// watcher may clean up with ordinary code before it ends the process.
#include <functional>

namespace vnsim::cli {

// Blocks SIGINT and SIGTERM in the calling thread (call it first in main,
// before any other thread exists, so every later thread inherits the mask)
// and starts the watcher, which calls `on_signal(signo)` once.
// `on_signal` must end the process or arrange for it to end.
// `with_sweep_parent`: the process is a sweep's child and ends with it
// (below); the watcher thread itself asks for the parent-death signal.
void watch_interrupts(std::function<void(int)> on_signal, bool with_sweep_parent = false);

// 128 + signo: the shell's convention (130 for SIGINT, 143 for SIGTERM).
int interrupt_exit_code(int signo);
const char* signal_name(int signo);

// The sweep sets sweep::kParentPidEnv in its children's environment; a child
// that finds it asks the kernel for SIGTERM when its parent dies (prctl
// PR_SET_PDEATHSIG), so a `kill -9` of the sweep leaves no orphaned replay.
// Call it on the watcher thread (watch_interrupts does): the parent-death
// signal is an attribute of the thread that asked for it, and a kernel may
// queue the signal for that thread alone; asked for by the main thread, where
// SIGTERM is blocked, it would stay pending there and never reach sigwait.
void die_with_sweep_parent();
// The same for a sweep rank under mpirun, with SIGKILL: once the launcher is
// gone the rank's MPI calls could block for ever, so it must not wind down
// through them; its replays then get their own SIGTERM.
void die_with_parent();

}  // namespace vnsim::cli
