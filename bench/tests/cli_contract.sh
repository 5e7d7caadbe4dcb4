#!/bin/sh
# A bench program keeps the command-line contract (bench/cli/bench_cli.hpp):
# --help and -h print the usage on stdout and exit 0 without running
# anything; an unknown option exits 2 and names it on stderr.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$bin: $*" >&2; exit 1; }
for flag in --help -h; do
  "$bin" $flag >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 0 ] || fail "$flag exited $rc: $(cat "$tmp/err")"
  grep -q '^usage: ' "$tmp/out" || fail "$flag printed no usage line"
  [ ! -s "$tmp/err" ] || fail "$flag wrote to stderr: $(cat "$tmp/err")"
done
"$bin" --no-such-option >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "an unknown option exited $rc, not 2"
grep -q -- '--no-such-option' "$tmp/err" || fail "the error does not name the option: $(cat "$tmp/err")"
exit 0
