#pragma once
// A GoogleTest fixture for tests that drive the vnsim binary as a process:
// a scratch folder per test, foreground runs with captured stdout/stderr,
// background runs in a process group of their own (as a shell job), and
// waits that tolerate a loaded CI machine. VNSIM_CLI_PATH names the binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "command_support.hpp"

namespace vnsim::testing {

class CliProcessTest : public ::testing::Test {
 protected:
  explicit CliProcessTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + std::string(info->name()) + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  // Runs `vnsim <args>`, stdout and stderr to files; returns the exit code.
  int vnsim(const std::string& args) {
    return exit_code(std::string(VNSIM_CLI_PATH) + " " + args + " > " + p("out.txt") + " 2> " + p("err.txt"));
  }
  std::string out() const { return slurp(dir_ / "out.txt"); }
  std::string err() const { return slurp(dir_ / "err.txt"); }

  // Starts `vnsim <args>` as a child of this test, in a process group of its
  // own as a shell job would be (stdout, stderr to bg_out.txt, bg_err.txt);
  // returns its pid, which is also the group's id.
  pid_t start(const std::vector<std::string>& args) {
    // A previous run's files go first, so that a wait on their text waits
    // for this run.
    std::filesystem::remove(dir_ / "bg_out.txt");
    std::filesystem::remove(dir_ / "bg_err.txt");
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char*> argv = {const_cast<char*>(VNSIM_CLI_PATH)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::setpgid(0, 0);
      const std::string o = p("bg_out.txt"), e = p("bg_err.txt");
      if (!std::freopen(o.c_str(), "w", stdout) || !std::freopen(e.c_str(), "w", stderr)) ::_exit(99);
      ::execv(VNSIM_CLI_PATH, argv.data());
      ::_exit(98);
    }
    return pid;
  }
  static int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // Waits (up to 60 s: CI machines are loaded, and a killed sweep's replays
  // may take tens of seconds there to get their SIGTERM and end) until
  // `done()` holds.
  template <class Done>
  static bool wait_until(Done done) {
    for (int i = 0; i < 6000; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace vnsim::testing
