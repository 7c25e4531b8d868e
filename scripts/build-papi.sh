#!/usr/bin/env bash
# make papi: PAPI with kpmc's component, for HPC tools that read counters
# through PAPI. Debian's libpapi-dev has no internal headers, so the
# component is built into PAPI itself: Debian bookworm's papi source
# package (its patches applied) with userland/papi/ as src/components/kpmc,
# configured --with-components=kpmc (perf_event stays the CPU component),
# built for ARCH: amd64 (this host, the default) or arm64 (cross, with the
# aarch64-linux-gnu toolchain the guests' programs are built with, and
# libpfm4-dev:arm64): libpapi.so/.a and the utilities papi_component_avail,
# papi_native_avail, papi_command_line, papi_cost in OUT/bin; PAPI's C tests
# in OUT/papi-VERSION/src/ctests.
#
# The source package comes through a deb-src entry of kpmc's own (an apt
# state under the cache: the host's apt state is never touched), once, into
# $KPMC_CACHE/papi/src/papi_VERSION-HASH (default ~/.cache/kpmc), HASH being
# the start of the .dsc's sha256 (the .dsc holds the tarballs' hashes). The
# tree is unpacked into OUT (default build/papi) and configured once per
# source package, architecture and CPU component; later runs copy the
# changed component files in and rebuild what changed. libkpmc (userland/, static) is built into OUT/libkpmc for the
# component to link.
#
# CPU (default perf_event): kpmc makes kpmc PAPI's component 0, before
# perf_event. PAPI gives presets (PAPI_TOT_INS...), which its tests and
# papi_cost count, to component 0 only: there the component loads them, and
# the tests count with kpmc (perf_event stays, component 1, without presets).
#   scripts/build-papi.sh [ARCH [OUT [CPU]]]   (OUT: build/papi, build/papi-arm64)
#
# The arm64 guest's copy (make stage, for tests/guest/t_arm64_papi.sh):
#   scripts/build-papi.sh stage ROOT OUT NAME
# puts OUT's (an arm64 build's) utilities, papi_loop and the C tests the
# guest runs into ROOT/papi/NAME/bin, stripped, its libpapi into
# ROOT/papi/NAME/lib (each build's own: the programs run with
# LD_LIBRARY_PATH=/papi/NAME/lib) and libpfm4 and libc into ROOT/lib.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = stage ]; then
	groot=${2:?usage: build-papi.sh stage ROOT OUT NAME}
	out=${3:?usage: build-papi.sh stage ROOT OUT NAME}
	dst=$groot/papi/${4:?usage: build-papi.sh stage ROOT OUT NAME}
	src=$(ls -d "$out"/papi-*/src | head -n1)
	[ -f "$src/libpapi.so.7.0.0.0" ] || { echo "build-papi: no libpapi in $out" >&2; exit 1; }
	rm -rf "$dst"
	mkdir -p "$dst/bin" "$dst/lib"
	progs=()
	for u in papi_component_avail papi_native_avail papi_command_line papi_cost papi_avail; do
		progs+=("$src/utils/$u")
	done
	# attach_target: what attach2 and zero_attach exec.
	for t in zero first second inherit fork zero_fork zero_pthreads attach2 zero_attach attach_target \
		multiplex1 multiplex2 multiplex3_pthreads overflow overflow_pthreads all_native_events; do
		progs+=("$src/ctests/$t")
	done
	progs+=("$out/bin/papi_loop" "$out/bin/papi_regions")
	for p in "${progs[@]}"; do
		aarch64-linux-gnu-strip -o "$dst/bin/${p##*/}" "$p"
	done
	aarch64-linux-gnu-strip -o "$dst/lib/libpapi.so.7.0" "$src/libpapi.so.7.0.0.0"
	KPMC_GUEST_LIB_DIRS=$dst/lib "$root/scripts/guest-libs.sh" arm64 "$groot" "$dst"/bin/*
	rm -f "$groot/lib/libpapi.so.7.0" # each build's own, in its lib/
	exit 0
fi
arch=${1:-amd64}
cpu=${3:-perf_event}
case $cpu in
perf_event | kpmc) ;;
*) echo "build-papi: CPU is perf_event or kpmc, not $cpu" >&2; exit 2 ;;
esac
case $arch in
amd64) out=${2:-$root/build/papi} cc=gcc triplet=$(gcc -print-multiarch) cross=() ;;
arm64)
	out=${2:-$root/build/papi-arm64} cc=aarch64-linux-gnu-gcc triplet=aarch64-linux-gnu
	# configure cannot run test programs for another architecture: what
	# it would find on an arm64 Linux is said (the same as it finds here).
	cross=(--host=aarch64-linux-gnu --with-arch=aarch64 --with-CPU=arm --with-ffsll
		--with-walltimer=clock_realtime --with-virtualtimer=clock_thread_cputime_id
		--with-tls=__thread)
	;;
*) echo "build-papi: ARCH is amd64 or arm64, not $arch" >&2; exit 2 ;;
esac
# OUT absolute: the configure stamp holds it, so a relative spelling of the
# same directory would configure it anew.
mkdir -p "$out"
out=$(cd "$out" && pwd)
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}/papi
suite=bookworm
# Every compile here shares the machine with test runs: one job, lowest priority.
run_low() { nice -n 19 "$@"; }

# --- The source package, by its hash ---------------------------------------
apt_state=$cache/apt
mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
o="-o Dir::Etc::sourcelist=$apt_state/sources.list -o Dir::Etc::sourceparts=/nonexistent"
o="$o -o Dir::State::Lists=$apt_state/lists -o Dir::Cache=$apt_state/cache"
want="deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
mkdir -p "$apt_state/lists/partial" "$apt_state/cache/archives/partial"
exec 9>"$cache/lock"
flock 9
# The lists, made and refreshed daily as scripts/apt-extra.sh does; offline,
# the lists (and the source package cached by them) as they are.
if [ "$(cat "$apt_state/sources.list" 2>/dev/null)" != "$want" ] ||
	[ -z "$(find "$apt_state/updated" -mmin -1440 2>/dev/null)" ]; then
	echo "$want" >"$apt_state/sources.list"
	# shellcheck disable=SC2086
	if apt-get $o update -q >&2; then
		touch "$apt_state/updated"
	else
		echo "build-papi: apt-get update (deb-src $suite) failed: the lists as they are" >&2
	fi
fi
# shellcheck disable=SC2086
showsrc=$(apt-cache $o showsrc papi)
version=$(sed -n 's/^Version: //p' <<<"$showsrc" | head -n1)
dsc_sha=$(awk '/^Checksums-Sha256:/ { on = 1; next } on && /^ / && $3 ~ /\.dsc$/ { print $1; exit } /^[^ ]/ { on = 0 }' <<<"$showsrc")
[ -n "$version" ] && [ -n "$dsc_sha" ] || { echo "build-papi: no papi source package in $suite's lists" >&2; exit 1; }
key=${dsc_sha:0:16}
src=$cache/src/papi_$version-$key
if [ ! -f "$src/.kpmc-done" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	# shellcheck disable=SC2086
	(cd "$src" && apt-get $o source --download-only -q "papi=$version" >&2)
	dsc=$(ls "$src"/*.dsc)
	got=$(sha256sum "$dsc" | cut -d' ' -f1)
	[ "$got" = "$dsc_sha" ] || { echo "build-papi: $dsc: sha256 $got, the index says $dsc_sha" >&2; exit 1; }
	touch "$src/.kpmc-done"
fi
exec 9>&-
echo "build-papi: papi $version (dsc sha256 $dsc_sha) from $src" >&2

# --- The tree, unpacked and configured once per source package -------------
upstream=${version%-*}
tree=$out/papi-$upstream
configure_args=(--with-components=kpmc --with-static-lib=yes --with-shared-lib=yes
	--with-shlib-tools --with-perf-events --with-pfm-incdir=/usr/include
	--with-pfm-libdir="/usr/lib/$triplet" --prefix="$out/install" "${cross[@]}" CC="$cc")
stamp="$key cpu=$cpu ${configure_args[*]}"
mkdir -p "$out"
if [ "$(cat "$out/.kpmc-configured" 2>/dev/null)" != "$stamp" ] || [ ! -d "$tree/src" ]; then
	rm -rf "$tree" "$out/.kpmc-configured"
	dpkg-source -x "$(ls "$src"/*.dsc)" "$tree" >&2
	rm -f "$out"/papi_*.orig.tar.* # dpkg-source's copy beside the tree: the cache has it
fi

# libkpmc for the component: the repository's own library, static, -fPIC.
run_low make -j1 --no-print-directory -C "$root/userland" OUT="$out/libkpmc" CC="$cc" "$out/libkpmc/libkpmc.a" >&2

# The component: only files that changed are copied (their times drive make).
comp=$tree/src/components/kpmc
mkdir -p "$comp"
for f in "$root"/userland/papi/*; do
	[ -f "$f" ] || continue # test/: programs of the guest's check, built below
	cmp -s "$f" "$comp/${f##*/}" || cp "$f" "$comp/"
done
paths=$(printf 'KPMC_TREE := %s\nKPMC_LIBKPMC_A := %s\n' "$root" "$out/libkpmc/libkpmc.a")
[ "$(cat "$comp/kpmc_paths.mk" 2>/dev/null)" = "$paths" ] || echo "$paths" >"$comp/kpmc_paths.mk"

if [ ! -f "$out/.kpmc-configured" ]; then
	(cd "$tree/src" && run_low ./configure "${configure_args[@]}" >"$out/configure.log" 2>&1) ||
		{ tail -n 30 "$out/configure.log" >&2; echo "build-papi: configure failed ($out/configure.log)" >&2; exit 1; }
	if [ "$cpu" = kpmc ]; then
		# configure lists the CPU component first; kpmc goes before it.
		conf=$tree/src/components_config.h
		awk '/&_kpmc_vector,/ { next } { print } /_papi_hwd\[\] = \{/ { print "   &_kpmc_vector," }' \
			"$conf" >"$conf.new" && mv "$conf.new" "$conf"
		grep -A1 '_papi_hwd\[\] = {' "$conf" | grep -q '&_kpmc_vector,' ||
			{ echo "build-papi: kpmc not put first in $conf" >&2; exit 1; }
	fi
	echo "$stamp" >"$out/.kpmc-configured"
fi

# libpapi (static and shared; its link takes libkpmc.a), the utilities, and
# the C tests (ctests/: zero, first, multiplex1... for the guest's
# validation; seconds more). F77 empty: the Fortran wrappers are C, and no
# Fortran test library is wanted (there is no aarch64 gfortran here).
(cd "$tree/src" && run_low make -j1 F77= utils ctests) >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; echo "build-papi: build failed ($out/build.log)" >&2; exit 1; }
# The utilities' runpath is the tree (its libpapi.so); elsewhere, as in a
# guest, libpapi.so.7.0 and libpfm.so.4 go beside them or in LD_LIBRARY_PATH.
mkdir -p "$out/bin"
for u in papi_component_avail papi_native_avail papi_command_line papi_cost papi_avail; do
	ln -sfn "$tree/src/utils/$u" "$out/bin/$u"
done
# papi_loop: a PAPI client around a loop of known length (the guest's check
# of exact counts), linked with this libpapi.
loop_src=$root/userland/papi/test/papi_loop.c
if [ ! "$out/bin/papi_loop" -nt "$loop_src" ] || [ "$root/tests/progs/spin.h" -nt "$out/bin/papi_loop" ] || [ "$tree/src/libpapi.so.7.0.0.0" -nt "$out/bin/papi_loop" ]; then
	run_low "$cc" -std=gnu11 -Wall -Wextra -Werror -O2 -I"$tree/src" -I"$root/tests/progs" -o "$out/bin/papi_loop" "$loop_src" \
		"$tree/src/libpapi.so.7.0.0.0" -Wl,-rpath="$tree/src"
fi
# papi_regions: the same regions through PAPI's high-level API and through
# libkpmc's regions (this tree's libkpmc.a, as the component's).
regions_src=$root/userland/papi/test/papi_regions.c
if [ ! "$out/bin/papi_regions" -nt "$regions_src" ] || [ "$root/tests/progs/spin.h" -nt "$out/bin/papi_regions" ] ||
	[ "$tree/src/libpapi.so.7.0.0.0" -nt "$out/bin/papi_regions" ] || [ "$out/libkpmc/libkpmc.a" -nt "$out/bin/papi_regions" ]; then
	run_low "$cc" -std=gnu11 -Wall -Wextra -Werror -O2 -I"$tree/src" -I"$root/tests/progs" -I"$root/userland/libkpmc/include" \
		-o "$out/bin/papi_regions" "$regions_src" "$tree/src/libpapi.so.7.0.0.0" "$out/libkpmc/libkpmc.a" -L"/usr/lib/$triplet" -lpfm -lpthread -lm \
		-Wl,-rpath="$tree/src"
fi
echo "build-papi: $out/bin (libpapi in $tree/src)" >&2
