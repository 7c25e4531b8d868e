#!/usr/bin/env bash
# libkpmc as a library: the shared object exports exactly the functions of
# kpmc.h (libkpmc.map) under soname libkpmc.so.0, and a program built with
# pkg-config links and runs against the shared and the static library (on
# the host there is no /proc/kpmc: kpmc_start must say so, -ENOENT).
#   tests/host/libkpmc_lib.sh LIBDIR OUTDIR
set -uo pipefail
lib=${1:?usage: libkpmc_lib.sh LIBDIR OUTDIR}
out=${2:?}
top=$(cd "$(dirname "$0")/../.." && pwd)
bad=""
# (and GCC's -finstrument-functions hooks, which kpmc.h declares: function regions)
want=$(sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(kpmc_[a-z_]*\|__cyg_profile_func_[a-z]*\)(.*/\1/p' "$top/userland/libkpmc/include/kpmc.h" | sort -u)
have=$(nm -D --defined-only "$lib/libkpmc.so" | awk '$2 == "T" { sub("@.*", "", $3); print $3 }' | sort -u)
[ -n "$want" ] && [ "$want" = "$have" ] ||
	bad="$bad exports differ from kpmc.h: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | tr '\n' ' ');"
readelf -d "$lib/libkpmc.so" | grep -q 'SONAME.*\[libkpmc.so.0\]' || bad="$bad no soname libkpmc.so.0;"
cat >"$out/libuser.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <kpmc.h>
int main(void)
{
	int err = kpmc_start("pmc0");

	printf("kpmc_start %d\n", err);
	return err == -ENOENT ? 0 : 1;
}
C
export PKG_CONFIG_PATH=$lib
cflags=$(pkg-config --cflags libkpmc) || bad="$bad pkg-config failed;"
gcc $cflags -o "$out/libuser.so" "$out/libuser.c" $(pkg-config --libs libkpmc) ||
	bad="$bad shared link failed;"
LD_LIBRARY_PATH=$lib "$out/libuser.so" || bad="$bad shared run failed;"
gcc -static $cflags -o "$out/libuser.a" "$out/libuser.c" $(pkg-config --static --libs libkpmc) ||
	bad="$bad static link failed;"
"$out/libuser.a" || bad="$bad static run failed;"
if [ -n "$bad" ]; then
	echo "libkpmc library: FAIL$bad"
	exit 1
fi
echo "libkpmc library: PASS ($(echo "$have" | wc -l) exports, soname libkpmc.so.0, shared and static links run)"
