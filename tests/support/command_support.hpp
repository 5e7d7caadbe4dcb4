#pragma once
// What the tests that drive vnsim or vnexec as processes need: a file's whole
// text and a shell command's exit status.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vnsim::testing {

// The file's bytes; empty when it cannot be read (the caller's assertion then
// shows what is missing).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The command's exit status, or -1 when it did not exit normally.
inline int exit_code(const std::string& command) {
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace vnsim::testing
