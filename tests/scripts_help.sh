#!/bin/bash
# Every script of the project answers --help and -h with exit 0 and its
# usage on stdout, without doing anything else: no file appears in the
# folder it runs in (before, derive_*.py wrote their output to a file named
# --help, and scripts/setup, scripts/test and scripts/demo ran), and a
# reader that stops early (`--help | head`) gets no Python traceback (a
# shell script dies of SIGPIPE there, quietly, as `cat` would).
set -u
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
cd "$tmp" || exit 1
for script in "$root"/scripts/* "$root"/scripts/report/*.py "$root"/bench/*.sh "$root"/bench/*.py "$root"/experiments/*/*.py "$root"/.ci/run; do
  [ -f "$script" ] || continue
  case $script in
    */cli_help.py) continue ;;  # the helper the Python scripts import
    *.py) run=(python3 "$script") ;;
    *) run=(bash "$script") ;;
  esac
  for flag in --help -h; do
    timeout 60 "${run[@]}" "$flag" >out.txt 2>err.txt
    rc=$?
    if [ $rc -ne 0 ]; then
      echo "FAIL ${script#"$root"/} $flag: exit $rc: $(head -c 300 err.txt)"
      status=1
    elif [ ! -s out.txt ]; then
      echo "FAIL ${script#"$root"/} $flag: nothing on stdout"
      status=1
    fi
    # `| true` closes the pipe before the script has printed (it starts
    # slower than `true` exits), so the print meets a closed pipe.
    if [[ $script == *.py ]]; then
      timeout 60 "${run[@]}" "$flag" 2>err.txt | true
      rc=${PIPESTATUS[0]}
    else
      rc=0
      : >err.txt
    fi
    if [ "$rc" -ne 0 ] || [ -s err.txt ]; then
      echo "FAIL ${script#"$root"/} $flag | true: exit $rc: $(head -c 300 err.txt)"
      status=1
    fi
    rm -f out.txt err.txt
    if [ -n "$(ls -A)" ]; then
      echo "FAIL ${script#"$root"/} $flag: left $(ls -A | head -3 | tr '\n' ' ')"
      rm -rf -- ./* ./.[!.]* 2>/dev/null
      status=1
    fi
  done
done
exit $status
