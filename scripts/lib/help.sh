# Sourced by the project's shell scripts: `answer_help "$@"` prints the
# calling script's header comment (what it does and its usage) on stdout and
# exits 0 when an argument is --help or -h, before the script does anything
# (docs/OUTPUTS.md, "Exit codes").
answer_help() {
  local arg
  for arg in "$@"; do
    if [[ $arg == --help || $arg == -h ]]; then
      # Line 2 up to the first line that is not a comment, without "# ".
      sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
      exit 0
    fi
  done
}
