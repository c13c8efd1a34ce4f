#!/usr/bin/env bash
# python_pip_test.sh - the mmtb Python package as pip installs it, offline:
# pip install --no-build-isolation --no-index of a copy of probe/python (the
# checkout stays clean) into a target directory, then the installed package
# (not the source) probes three-diag's start (a win, only by b2), once with
# libmmtb found through MMTB_LIBRARY and once found next to the package.
# Prefers Debian's /usr/bin/python3; exits 77 (skipped) when pip, setuptools
# or wheel is missing (Debian: apt-get install python3-pip; scripts/setup does).
# Usage: python_pip_test.sh SOURCE_DIR LIBMMTB MMTB_GEN [LIBASAN]
set -euo pipefail
src=$1 lib=$2 gen=$3 asan=${4:-}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if ! { "$py" -m pip --version && "$py" -c 'import setuptools, wheel'; } >/dev/null 2>&1; then
    echo "SKIP: $py has no pip/setuptools/wheel (Debian: apt-get install python3-pip)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmtb-pip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cp -r "$src/probe/python" "$tmp/src"
rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
# no LD_PRELOAD here: pip runs no libmmtb code
env -u LD_PRELOAD "$py" -m pip install -q --no-build-isolation --no-index --no-deps \
    --target "$tmp/site" "$tmp/src" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; fail "pip install"; }
[ -f "$tmp/site/mmtb/__init__.py" ] || fail "pip installed no mmtb package"
echo "ok: pip install --no-build-isolation --no-index ($("$py" -m pip --version | cut -d' ' -f1-2))"

"$gen" -v three-diag --start -o "$tmp/t3d" >/dev/null 2>&1 || fail "mmtb-gen"
check='
import os, sys, mmtb
assert mmtb.__file__.startswith(sys.argv[1]), mmtb.__file__
with mmtb.open(sys.argv[2]) as t:
    r = t.probe("- - w 3 3")
assert r.wdl == mmtb.WIN and r.best == ["b2"], r
print(mmtb.library_path())
'
run() { # with the ASan runtime first when the library is sanitized
    cd "$tmp" && env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0:abort_on_error=1} \
        PYTHONPATH="$tmp/site" "$@"
}
got=$(run MMTB_LIBRARY="$lib" "$py" -c "$check" "$tmp/site" "$tmp/t3d") || fail "probe (MMTB_LIBRARY)"
[ "$got" = "$lib" ] || fail "loaded $got, not MMTB_LIBRARY=$lib"
echo "ok: installed package, library from MMTB_LIBRARY: start is a win, best move b2"
cp "$(readlink -f "$lib")" "$tmp/site/mmtb/libmmtb.so"
got=$(run env -u MMTB_LIBRARY "$py" -c "$check" "$tmp/site" "$tmp/t3d") || fail "probe (next to the package)"
[ "$got" = "$tmp/site/mmtb/libmmtb.so" ] || fail "loaded $got, not the copy next to the package"
echo "ok: installed package, library next to it: start is a win, best move b2"
