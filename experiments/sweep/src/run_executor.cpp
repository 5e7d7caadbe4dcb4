// Process management for sweeps: posix_spawn + polling waitpid on our own
// pids only, so children of anything else in the process (an MPI runtime)
// are never reaped by mistake.
#include "vnsim/sweep/run_executor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "vnsim/core/error.hpp"
#include "vnsim/sweep/display_command.hpp"
#include "vnsim/sweep/run_inputs_key.hpp"

extern char** environ;

namespace vnsim::sweep {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t kStderrTailLines = 20;

std::string tail_lines(const fs::path& file, std::size_t n) {
  std::ifstream f(file);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(f, line)) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream f(file, std::ios::binary);
  f << text;
  if (!f) throw InputError(file.string() + ": cannot write");
}

std::string read_text(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The replay's arguments without "--out DIR", which names where, not what.
std::vector<std::string> args_without_out(std::vector<std::string> args) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--out")
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
  return args;
}

// The environment of the sweep plus kParentPidEnv=<our pid> and
// VNSIM_SHARED=<the shared root its paths were expanded with>, so that the
// replay names those inputs "${VNSIM_SHARED}/..." in run.json and
// summary.json as command.txt does (shared_path_label), also where the
// sweep took the default root without the variable.
std::vector<std::string> child_environment(const std::string& shared_root) {
  std::vector<std::string> env;
  const std::string prefix = std::string(kParentPidEnv) + "=";
  const std::string shared = "VNSIM_SHARED=";
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var(*e);
    if (var.rfind(prefix, 0) != 0 && var.rfind(shared, 0) != 0) env.push_back(var);
  }
  env.push_back(prefix + std::to_string(::getpid()));
  if (!shared_root.empty()) env.push_back(shared + shared_root);
  return env;
}

pid_t spawn_run(const std::string& exe, const RunSpec& run, const fs::path& dir,
                const std::string& shared_root) {
  fs::create_directories(dir);
  for (const char* stale : {"exit_code.txt", "error.txt", "input_key.txt"}) fs::remove(dir / stale);
  std::vector<std::string> args = run.replay_args(dir.string());
  args.insert(args.begin(), exe);
  write_text(dir / "command.txt", display_command(args, shared_root, fs::current_path()) + "\n");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = child_environment(shared_root);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  // The sweep blocks SIGINT/SIGTERM (its watcher thread takes them): give
  // the child an empty mask and default actions, as a shell would.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
  return pid;
}

// Returns true when the run failed. `timeout_s` > 0: the run was killed after that many seconds.
bool record_exit(int status, const fs::path& dir, double timeout_s) {
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (timeout_s <= 0 && code == 0 && fs::exists(dir / "summary.json")) return false;
  write_text(dir / "exit_code.txt", std::to_string(code) + "\n");
  std::string reason = tail_lines(dir / "stderr.txt", kStderrTailLines);
  if (timeout_s > 0) {
    // A killed replay may have written summary.json already; without it the
    // next sweep re-runs this run, as it would any failure.
    fs::remove(dir / "summary.json");
    std::ostringstream line;
    line << "timed out: killed after " << timeout_s << " s (--run-timeout)\n";
    reason += line.str();  // last line, so results.csv's error column shows it
  }
  if (reason.empty())
    reason = code == 0 ? "exited 0 without writing summary.json\n" : "no output on stderr\n";
  write_text(dir / "error.txt", reason);
  return true;
}

bool ended_by_interrupt(int status) {
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return code == 128 + SIGINT || code == 128 + SIGTERM;
}

}  // namespace

std::string run_dir(const std::string& out_dir, const RunSpec& run) {
  return (fs::path(out_dir) / "runs" / run.id).string();
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the vnsim executable: " + ec.message());
  return p.string();
}

ExecutorTally execute_runs(const std::vector<const RunSpec*>& runs, const ExecutorOptions& options) {
  ExecutorTally tally;
  using Clock = std::chrono::steady_clock;
  struct Running {
    pid_t pid;
    const RunSpec* run;
    Clock::time_point started;
    bool killed = false;
  };
  std::vector<Running> running;
  std::size_t next = 0, done = 0;
  InputKeyer keyer(options.vnsim_exe);
  std::map<const RunSpec*, std::string> keys;
  bool stopping = false;
  const unsigned parallel = options.parallel == 0 ? 1 : options.parallel;
  auto report = [&] {
    if (options.progress) options.progress(done, runs.size());
  };
  report();
  while ((next < runs.size() && !stopping) || !running.empty()) {
    if (!stopping && options.interrupted && options.interrupted()) {
      stopping = true;
      for (auto& child : running) kill(child.pid, SIGTERM);  // our own children
    }
    while (!stopping && next < runs.size() && running.size() < parallel) {
      const RunSpec* r = runs[next++];
      const fs::path dir = run_dir(options.out_dir, *r);
      const std::string key = keyer.key(args_without_out(r->replay_args(dir.string())));
      if (fs::exists(dir / "summary.json")) {
        const std::string change = input_key_change(read_text(dir / "input_key.txt"), key);
        if (change.empty()) {
          ++tally.skipped;
          ++done;
          report();
          continue;
        }
        if (options.rerun_notice) options.rerun_notice(r->id, change);
      }
      keys[r] = key;
      running.push_back({spawn_run(options.vnsim_exe, *r, dir, options.shared_root), r, Clock::now()});
    }
    bool reaped = false;
    for (std::size_t i = 0; i < running.size();) {
      int status = 0;
      const pid_t got = waitpid(running[i].pid, &status, WNOHANG);
      if (got == 0 || (got < 0 && errno == EINTR)) {
        const std::chrono::duration<double> age = Clock::now() - running[i].started;
        if (options.run_timeout_s > 0 && !running[i].killed && age.count() > options.run_timeout_s) {
          kill(running[i].pid, SIGKILL);  // our own child; reaped on a later pass
          running[i].killed = true;
        }
        ++i;
        continue;
      }
      if (got < 0) status = 127 << 8;  // lost child: record as a failure rather than hang
      const fs::path dir = run_dir(options.out_dir, *running[i].run);
      const bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      // Ctrl-C reaches the replays and the sweep at once: a replay that ended
      // by SIGINT/SIGTERM may be reaped before the sweep's watcher has set the
      // flag, so give the flag a moment before calling the run failed.
      if (!stopping && ended_by_interrupt(status) && options.interrupted) {
        for (int wait = 0; wait < 20 && !options.interrupted(); ++wait)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (options.interrupted()) {
          stopping = true;
          for (std::size_t k = 0; k < running.size(); ++k)  // not running[i]: reaped, its pid is free
            if (k != i) kill(running[k].pid, SIGTERM);
        }
      }
      if (stopping && !finished) {
        ++tally.interrupted;  // no exit_code.txt: results.csv says "interrupted"
      } else {
        ++tally.ran;
        const bool failed = record_exit(status, dir, running[i].killed ? options.run_timeout_s : 0.0);
        tally.failed += failed;
        if (!failed) write_text(dir / "input_key.txt", keys[running[i].run]);
      }
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      ++done;
      reaped = true;
      report();
    }
    if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return tally;
}

}  // namespace vnsim::sweep
