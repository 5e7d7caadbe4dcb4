# Sourced by the shell tests of scripts/ (tests/*_test.sh), called as
# `TEST SOURCE_DIR BUILD_DIR`: sets `root` and `build` from the arguments,
# makes a scratch folder `tmp` removed on exit, and defines `fail MESSAGE`,
# which prints the reason and ends the test with exit 1.
set -u
root=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
