# shellcheck shell=bash
# ccache_launcher ROOT: prints the cmake arguments that put ccache in front of
# the compilers, where the machine has ccache and VNSIM_NO_CCACHE is unset.
# Paths under ROOT (the checkout) are hashed relative to the build folder and
# the build folder itself is not hashed, so that a fresh clone at another path
# (CI, a worktree) reuses the objects of an earlier build.
ccache_launcher() {
  local root=$1
  [[ -z "${VNSIM_NO_CCACHE:-}" ]] && command -v ccache >/dev/null || return 0
  local launcher="env;CCACHE_BASEDIR=$root;CCACHE_NOHASHDIR=true;ccache"
  printf '%s\n' "-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" "-DCMAKE_C_COMPILER_LAUNCHER=$launcher"
}
