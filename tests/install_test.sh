#!/usr/bin/env bash
# install_test.sh - libmmtb as a consumer sees it: installs the build tree
# into a temporary prefix, checks what was installed (soname, exported
# symbols = the public headers' functions, no OpenMP, pkg-config metadata,
# each header compiles alone), then builds probe/examples/probe_example.c
# against the installed tree through pkg-config, through find_package(mmtb)
# (shared) and through find_package(mmtb) (static), solves three-diag from the
# installed variant file with the installed mmtb-gen, and checks each build
# says what is known: the start is a first-player win, only by b2.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR VERSION CC SANITIZE(0|1)
set -euo pipefail
build=$1 src=$2 version=$3 cc=$4 sanitize=$5
# A sanitized library needs sanitized consumers (the ASan runtime must come
# first in the program's library list).
san=()
[ "$sanitize" = 1 ] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmtb-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=$(dirname "$(find "$prefix" -name 'libmmtb.so' | head -1)")
[ -n "$libdir" ] && [ -d "$libdir" ] || fail "no libmmtb.so installed"
for f in "$libdir/libmmtb.a" "$prefix/include/mmtb.h" "$prefix/include/mmtb_common.h" \
         "$prefix/include/mmtb_rules.h" \
         "$prefix/bin/mmtb-gen" "$prefix/bin/mmtb-probe" "$libdir/pkgconfig/mmtb.pc" \
         "$libdir/cmake/mmtb/mmtbConfig.cmake" "$libdir/cmake/mmtb/mmtbConfigVersion.cmake" \
         "$prefix/share/mmtb/variants/nine.txt" "$prefix/share/mmtb/variants/three-diag.txt"; do
    [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
for h in variant.h sector_index.h tablefile.h notation.h movegen.h tbinternal.h; do
    [ ! -e "$prefix/include/$h" ] || fail "internal header installed: $h"
done
ok "files installed"

# Versioned soname: libmmtb.so.MAJOR.MINOR while MAJOR is 0, else .MAJOR.
IFS=. read -r major minor _ <<<"$version"
want=libmmtb.so.$major; [ "$major" = 0 ] && want=libmmtb.so.$major.$minor
soname=$(readelf -d "$libdir/libmmtb.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "$want" ] || fail "soname '$soname', expected '$want'"
[ -e "$libdir/$soname" ] && [ -e "$libdir/libmmtb.so.$version" ] || fail "soname links"
needed=$(readelf -d "$libdir/libmmtb.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in *gomp*|*omp*) fail "OpenMP in libmmtb.so's NEEDED: $needed" ;; esac
case "$needed" in *libzstd*) ;; *) fail "libzstd not in NEEDED: $needed" ;; esac
ok "soname $soname, needs: $needed"

# Exported symbols: exactly the functions the installed headers declare
# (found by preprocessing them, so comments and macros do not count).
declared=$(cat "$prefix"/include/*.h | "$cc" -E -P -I"$prefix/include" -x c - |
           grep -o '\bmmtb_[a-z0-9_]*[[:space:]]*(' | tr -d '( \t' | sort -u)
exported=$(nm -D --defined-only "$libdir/libmmtb.so" | awk '{print $3}' | sort -u)
[ -n "$declared" ] || fail "no declarations found in the headers"
if [ "$declared" != "$exported" ]; then
    diff <(echo "$declared") <(echo "$exported") >&2 || true
    fail "exported symbols (>) differ from the headers' functions (<)"
fi
ok "exports $(echo "$exported" | wc -l) symbols, all declared in the headers"

# Each installed header compiles on its own (needs nothing uninstalled).
for h in "$prefix"/include/*.h; do
    echo "#include <$(basename "$h")>" | "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only \
        -I"$prefix/include" -x c - || fail "$(basename "$h") does not compile alone"
done
ok "headers compile alone"

export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion mmtb)" = "$version" ] || fail "pkg-config version"
libs=$(pkg-config --libs --static mmtb)
case "$libs" in *omp*) fail "OpenMP in pkg-config --libs: $libs" ;; esac
case "$libs" in *-lzstd*) ;; *) fail "no -lzstd in pkg-config --static --libs: $libs" ;; esac
ok "pkg-config: $(pkg-config --cflags --libs mmtb)"

# Tables from the installed program and the installed variant file.
"$prefix/bin/mmtb-gen" -v "$prefix/share/mmtb/variants/three-diag.txt" --start -o "$tmp/t3d" \
    >"$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; fail "installed mmtb-gen"; }

# check_example NAME BINARY: run on the start and on a malformed position.
check_example() {
    local name=$1 bin=$2 out
    out=$("$bin" "$tmp/t3d" '- - w 3 3') || fail "$name: exit $?"
    grep -qx "libmmtb $version (header $version)" <<<"$out" || fail "$name: version line: $out"
    grep -qx 'variant three-diag (.*)' <<<"$out" || fail "$name: variant: $out"
    grep -q '^value win [0-9]' <<<"$out" || fail "$name: the start is a win: $out"
    grep -qx 'best b2' <<<"$out" || fail "$name: the only winning move is b2: $out"
    [ "$(grep -c '^move ' <<<"$out")" = 9 ] || fail "$name: nine first moves"
    if "$bin" "$tmp/t3d" 'zz - w 3 3' >/dev/null 2>"$tmp/err"; then fail "$name: bad position accepted"; fi
    grep -q "zz" "$tmp/err" || fail "$name: message does not name the field: $(cat "$tmp/err")"
    ok "$name: start is a win, best move b2"
}

# 1. pkg-config, plain cc.
ex=$src/probe/examples/probe_example.c
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$tmp/ex_pc" "$ex" $(pkg-config --cflags --libs mmtb)
grep -q "NEEDED.*\[$soname\]" <<<"$(readelf -d "$tmp/ex_pc")" || fail "pkg-config build does not need $soname"
LD_LIBRARY_PATH=$libdir check_example pkg-config "$tmp/ex_pc"

# 2. find_package(mmtb) in a separate CMake project, shared then static.
for kind in shared static; do
    st=OFF; [ $kind = static ] && st=ON
    cmake -S "$src/probe/examples" -B "$tmp/ex_$kind" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="${san[*]}" -DMMTB_EXAMPLE_STATIC=$st \
        >"$tmp/cmake_$kind.log" 2>&1 || { cat "$tmp/cmake_$kind.log"; fail "configure ($kind)"; }
    cmake --build "$tmp/ex_$kind" >>"$tmp/cmake_$kind.log" 2>&1 ||
        { cat "$tmp/cmake_$kind.log"; fail "build ($kind)"; }
    bin=$tmp/ex_$kind/probe_example
    if [ $kind = shared ]; then
        # CMake's build RUNPATH finds the installed library by itself.
        # (grep -q on a pipe ends early: under pipefail the writer's SIGPIPE
        # would fail the test at random, so grep reads a string)
        grep -q "$libdir/$soname" <<<"$(ldd "$bin")" || fail "find_package build: $(ldd "$bin")"
    else
        ! grep -q 'NEEDED.*libmmtb' <<<"$(readelf -d "$bin")" || fail "static build needs libmmtb.so"
    fi
    check_example "find_package ($kind)" "$bin"
done
