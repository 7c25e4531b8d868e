#!/usr/bin/env bash
# Debian packages of kpmc (kpmc-dkms, kpmc, libkpmc0, libkpmcfold1, libkpmc-dev) with
# dpkg-buildpackage, built from a copy of the working tree (tracked files and
# untracked ones git does not ignore) so that nothing lands in the sources.
#   scripts/build-deb.sh OUTDIR        .debs and .buildinfo/.changes in OUTDIR
set -euo pipefail
out=${1:?usage: build-deb.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
for t in dpkg-buildpackage dh dh_dkms fakeroot; do
	command -v $t >/dev/null || { echo "build-deb: $t is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
ver=$(cd "$top" && dpkg-parsechangelog -SVersion)
src=$out/kpmc-$ver
start=$(date +%s)
rm -rf "$src" "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
mkdir -p "$src"
# (--ignore-failed-read: a tracked file deleted in the working tree)
(cd "$top" && git ls-files -z -co --exclude-standard |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$src"
(cd "$src" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -rf "$src"
echo "build-deb: $(cd "$out" && ls *.deb | tr '\n' ' ')in $out ($(($(date +%s) - start)) s)"
