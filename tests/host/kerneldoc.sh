#!/usr/bin/env bash
# kernel-doc of the interfaces that code outside the core is written
# against: libkpmc's public header, the faces a sampling format, a PMU
# backend and a monitoring module fill in, and the core's in-kernel metric
# API (kernel/layer_interfaces.h). The kernel's own scripts/kernel-doc checks them in
# -none mode (warnings only) with all its warnings on (-v, and -Wall where
# the script has it: before -Wall, -v turned the same checks on): every
# parameter and member described, a Return: section wherever a value is
# returned. Any warning fails, and so does a missing script: a check that
# cannot run never passes. kernel-doc says nothing of a function that has no
# comment at all, so this also fails unless each function kpmc.h declares
# (libkpmc's API) and each symbol kpmc.ko exports has one.
#   tests/host/kerneldoc.sh [ROOT]   (ROOT: a tree holding the files; this one)
# The script: $KPMC_KERNEL_DOC, else the one in Debian's linux-kbuild-6.1,
# which scripts/install-deps.sh installs (make test's deps, before the host
# tests; a linux-source tree is there only once a guest stage of the patched
# kernels has unpacked it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-$top}
files=(userland/libkpmc/include/kpmc.h kernel/include/kpmc/format.h
	kernel/include/kpmc/backend.h kernel/include/kpmc/monmod.h kernel/layer_interfaces.h
	kernel/include/kpmc/cgroup_count.h)
kd=${KPMC_KERNEL_DOC:-/usr/lib/linux-kbuild-6.1/scripts/kernel-doc}

if [ ! -f "$kd" ]; then
	echo "kerneldoc: FAIL no kernel-doc script at $kd: install linux-kbuild-6.1" \
		"(scripts/install-deps.sh) or set KPMC_KERNEL_DOC to one"
	exit 1
fi
pkg=$(dpkg-query -S "$kd" 2>/dev/null | cut -d: -f1)
if [ -n "$pkg" ]; then
	what="$pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)"
elif [ -f "$(dirname "$kd")/../Makefile" ]; then
	what=linux-$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = /./p; s/^SUBLEVEL = /./p' \
		"$(dirname "$kd")/../Makefile" | tr -d '\n')
else
	what="version unknown"
fi
opts=(-none -v -Werror)
grep -q Wall "$kd" && opts+=(-Wall)
cd "$root" || exit 1
for f in "${files[@]}"; do
	[ -f "$f" ] || { echo "kerneldoc: FAIL $root/$f: no such file"; exit 1; }
done
if [ -x "$kd" ]; then
	out=$("$kd" "${opts[@]}" "${files[@]}" 2>&1)
else
	out=$(perl "$kd" "${opts[@]}" "${files[@]}" 2>&1)
fi
rc=$?
bad=$(grep -E ': (warning|error): ' <<<"$out")
if [ -n "$bad" ] || [ $rc -ne 0 ]; then
	[ -n "$bad" ] && printf '%s\n' "$bad" || printf '%s\n' "$out"
	echo "kerneldoc: FAIL $kd $what (${opts[*]}): exit $rc, $(grep -c . <<<"$bad") warning(s)"
	exit 1
fi

# What it found: "FILE:LINE: info: Scanning doc for KIND NAME".
fail=0 total=0
for f in "${files[@]}"; do
	found=$(sed -n "s|^$f:[0-9]*: info: Scanning doc for \([a-z]*\) .*|\1|p" <<<"$out")
	n=$(grep -c . <<<"$found")
	total=$((total + n))
	if [ "$n" -eq 0 ]; then
		echo "kerneldoc: $f: no kernel-doc comment found"
		fail=1
		continue
	fi
	echo "kerneldoc: $f: $(sort <<<"$found" | uniq -c |
		awk '{ printf "%s%d %s%s", (NR > 1 ? ", " : ""), $1, $2, ($1 > 1 ? "s" : "") }')"
done
documented=$(sed -n 's|^.*: info: Scanning doc for function \(.*\)$|\1|p' <<<"$out" | sort -u)
# libkpmc's API as tests/host/libkpmc_lib.sh reads it, its internal kpmc__ helpers aside.
api=$(sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(kpmc_[a-z_]*\|__cyg_profile_func_[a-z]*\)(.*/\1/p' \
	userland/libkpmc/include/kpmc.h | grep -v '^kpmc__' | sort -u)
exported=$(grep -rhoE 'EXPORT_SYMBOL(_GPL)?\([a-z_0-9]+\)' "$top"/kernel "$top"/backends \
	"$top"/formats "$top"/modules --include='*.c' | sed 's/.*(\(.*\))/\1/' | sort -u)
missing=$(comm -23 <(printf '%s\n%s\n' "$api" "$exported" | grep . | sort -u) \
	<(printf '%s\n' "$documented"))
if [ -n "$missing" ]; then
	echo "kerneldoc: no kernel-doc comment for: $(tr '\n' ' ' <<<"$missing")"
	fail=1
fi
if [ $fail -ne 0 ]; then
	echo "kerneldoc: FAIL comments missing"
	exit 1
fi
echo "kerneldoc: PASS ${#files[@]} files, $total kernel-doc comments, each of kpmc.h's" \
	"$(wc -w <<<"$api") functions and kpmc.ko's $(wc -w <<<"$exported") exports among them;" \
	"no warning from $kd ($what, ${opts[*]})"
