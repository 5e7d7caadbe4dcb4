#include "notebook_runner.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "vnsim/core/error.hpp"

extern char** environ;

namespace vnsim::cli {

int run_notebook_builder(const std::string& script, const std::vector<std::string>& args) {
  const char* env_python = std::getenv("VNSIM_PYTHON");
  const std::string python = env_python != nullptr && *env_python != '\0' ? env_python : "/usr/bin/python3";
  if (!std::filesystem::is_regular_file(script)) throw InputError(script + ": notebook builder not found");
  std::vector<std::string> args_text = {python, script};
  args_text.insert(args_text.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : args_text) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = posix_spawn(&pid, python.c_str(), nullptr, nullptr, cargv.data(), environ); rc != 0)
    throw InputError(python + ": cannot start: " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  std::fprintf(stderr, "vnsim: %s failed (exit status %d)\n", script.c_str(),
               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return WIFEXITED(status) && WEXITSTATUS(status) == 2 ? 2 : 1;
}

}  // namespace vnsim::cli
