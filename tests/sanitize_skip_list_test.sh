#!/bin/bash
# Each pattern of the tests that `scripts/test --sanitize` leaves out names
# at least one test of this build: a pattern that names none leaves a slow
# test in the sanitizer pass unnoticed (two did: a parameterised test's
# ctest name goes on after its parameter, so their '$' never matched). The
# patterns name disjoint tests, so the list leaves out as many tests as
# they name together.
# Usage: sanitize_skip_list_test.sh SOURCE_DIR BUILD_DIR
# shellcheck source=tests/lib/script_test.sh
source "$(dirname "$0")/lib/script_test.sh"
regex=$(sed -n "s/^ *skip=(-E '\(.*\)')$/\1/p" "$root/scripts/test")
[[ -n $regex ]] || fail "no skip=(-E '...') line found in scripts/test"
cd "$build" || fail "no build folder $build"
count=0
patterns=0
while IFS= read -r pattern; do
  n=$(ctest -N -R "$pattern" | grep -c '^ *Test *#')
  [[ $n -ge 1 ]] || fail "pattern '$pattern' names no test"
  count=$((count + n))
  patterns=$((patterns + 1))
done < <(tr '|' '\n' <<<"$regex" | awk '
  # Rejoin alternatives split inside a group, e.g. "fifo( " and "$)".
  { line = (open ? line "|" $0 : $0); open += gsub(/\(/, "(") - gsub(/\)/, ")") }
  !open { print line; line = "" }')
total=$(ctest -N -E "$regex" | sed -n 's/^Total Tests: //p')
all=$(ctest -N | sed -n 's/^Total Tests: //p')
[[ $((all - total)) -eq $count ]] || fail "the skip list leaves out $((all - total)) tests, its patterns name $count"
echo "sanitizer skip list: $patterns patterns, $count tests"
