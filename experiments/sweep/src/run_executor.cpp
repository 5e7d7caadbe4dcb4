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
#include <sstream>
#include <thread>

#include "vnsim/core/error.hpp"

extern char** environ;

namespace vnsim::sweep {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t kStderrTailLines = 20;

std::string shell_quote(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:") ==
          std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

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

pid_t spawn_run(const std::string& exe, const RunSpec& run, const fs::path& dir) {
  fs::create_directories(dir);
  for (const char* stale : {"exit_code.txt", "error.txt"}) fs::remove(dir / stale);
  std::vector<std::string> args = run.replay_args(dir.string());
  args.insert(args.begin(), exe);
  std::string command;
  for (const auto& a : args) command += (command.empty() ? "" : " ") + shell_quote(a);
  write_text(dir / "command.txt", command + "\n");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
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
  const unsigned parallel = options.parallel == 0 ? 1 : options.parallel;
  auto report = [&] {
    if (options.progress) options.progress(done, runs.size());
  };
  report();
  while (next < runs.size() || !running.empty()) {
    while (next < runs.size() && running.size() < parallel) {
      const RunSpec* r = runs[next++];
      const fs::path dir = run_dir(options.out_dir, *r);
      if (fs::exists(dir / "summary.json")) {
        ++tally.skipped;
        ++done;
        report();
        continue;
      }
      running.push_back({spawn_run(options.vnsim_exe, *r, dir), r, Clock::now()});
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
      ++tally.ran;
      tally.failed += record_exit(status, run_dir(options.out_dir, *running[i].run),
                                  running[i].killed ? options.run_timeout_s : 0.0);
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
