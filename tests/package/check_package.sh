#!/usr/bin/env bash
# Installs liboverlap (component liboverlap) into a temporary prefix, builds an outside
# project against it with find_package(Overlap), and runs it on 2 ranks.
#   check_package.sh BUILD_DIR SOURCE_DIR CMAKE MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 src=$2 cmake=$3 mpiexec=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI runs as root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/prefix" --component liboverlap >/dev/null
test -f "$tmp/prefix/include/overlap/overlap.h" || { echo "FAIL: overlap.h not installed"; exit 1; }
"$cmake" -S "$src/tests/package/consumer" -B "$tmp/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
# The installed library must be the one the program finds (not the build tree's).
libs=$(ldd "$tmp/consumer/consumer")
grep -q "liboverlap.so.* => $tmp/prefix/" <<<"$libs" || { echo "FAIL: not linked to the installed liboverlap"; echo "$libs"; exit 1; }
out=$(timeout 120 "$mpiexec" "$@" -n 2 "$tmp/consumer/consumer")
echo "$out"
grep -qx "consumer ok 2" <<<"$out" || { echo "FAIL: consumer did not report success"; exit 1; }
echo PASS
