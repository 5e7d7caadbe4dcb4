#!/bin/bash
# scripts/bundle_runtime: the bundle holds vnexec, Open MPI and the libraries
# they link, but neither CUDA's libraries nor (with --exec-only) vnsim; once
# unpacked elsewhere and sourced, its own mpirun starts its own vnexec, which
# loads its MPI library from the bundle, and a CPU calibration runs.
# Usage: bundle_runtime_test.sh SOURCE_DIR BUILD_DIR
# shellcheck source=tests/lib/script_test.sh
source "$(dirname "$0")/lib/script_test.sh"
"$root/scripts/bundle_runtime" --build "$build" --exec-only --fast --out "$tmp/rt.tar.xz" >"$tmp/bundle.log" 2>&1 ||
  fail "bundle_runtime exited $?: $(tail -5 "$tmp/bundle.log")"
tar -tJf "$tmp/rt.tar.xz" >"$tmp/list.txt" || fail "the bundle is not a readable tar.xz"
for f in ./bin/vnexec ./env.sh ./root/usr/bin/mpirun ./root/usr/bin/orted ./lib/libmpi.so.40; do
  grep -qx "$f" "$tmp/list.txt" || fail "$f missing from the bundle"
done
! grep -q 'bin/vnsim$' "$tmp/list.txt" || fail "--exec-only bundled vnsim"
! grep -qE 'lib(cudart|cublas|nccl|cuda)\.so' "$tmp/list.txt" || fail "CUDA's libraries were bundled"

mkdir "$tmp/rt" && tar -xJf "$tmp/rt.tar.xz" -C "$tmp/rt" || fail "the bundle does not unpack"
# shellcheck source=/dev/null
source "$tmp/rt/env.sh"
[[ $(command -v mpirun) == "$tmp/rt/root/usr/bin/mpirun" ]] || fail "mpirun is $(command -v mpirun), not the bundle's"
[[ $(command -v vnexec) == "$tmp/rt/bin/vnexec" ]] || fail "vnexec is $(command -v vnexec), not the bundle's"
ldd "$tmp/rt/bin/vnexec" | grep -q "libmpi.so.40 => $tmp/rt/lib/" || fail "vnexec does not load the bundle's libmpi: $(ldd "$tmp/rt/bin/vnexec" | grep libmpi)"
cd "$tmp" || exit 1
timeout 120 mpirun --oversubscribe -np 2 vnexec calibrate --backend cpu --models cifar10 --repetitions 2 \
  --out cal >calibrate.log 2>&1 || fail "calibration under the bundle's mpirun exited $?: $(tail -5 calibrate.log)"
[[ -s cal/cluster.json && -s cal/models.json ]] || fail "the calibration wrote no cluster spec or profile"
echo "bundle_runtime: ok ($(du -h rt.tar.xz | cut -f1))"
