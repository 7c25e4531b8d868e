#!/usr/bin/env bash
# A Debian bookworm (amd64) root filesystem with Performance Co-Pilot and Slurm, for
# the two-node guests of tests/pmda/two-nodes.sh: debootstrap from Debian's
# archive, pcp and the libraries of the kpmc CLI and pmdakpmc installed, no
# service started while installing (policy-rc.d), the PMNS built (what
# pmcd's service script does at its first start), then packed as a gzip'd
# cpio that the guest kernel unpacks as its whole root (a second archive
# appended to it carries kpmc and the node's /init). Cached by a hash of
# this script under ~/.cache/kpmc/pcp-root/.
#   scripts/pcp-root.sh        prints the path of root.cpio.gz
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
# pcp: pmcd, pmproxy, pmlogger, pminfo, pmrep (python3-pcp); busybox: ip,
# the node's shell tools; libpfm4, libdw1, libhwloc15: the kpmc CLI;
# slurmd, slurmctld, slurm-client, munge: a Slurm cluster of the guests
# (kpmc's SPANK plugin).
pkgs=(pcp python3-pcp busybox kmod procps libpfm4 libdw1 libelf1 libhwloc15
	slurmd slurmctld slurm-client munge)

key=$( { echo "${pkgs[*]}"; cat "$0"; } | sha256sum | cut -c1-12)
dir=$cache/pcp-root/$key
out=$dir/root.cpio.gz
if [ -f "$dir/.kpmc-done" ]; then
	echo "$out"
	exit 0
fi
for t in debootstrap cpio gzip; do
	command -v $t >/dev/null || { echo "pcp-root: $t is missing" >&2; exit 1; }
done
mkdir -p "$cache/pcp-root"
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.kpmc-done" ]; then
	echo "$out"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
root=$dir/root
log=$dir/build.log
start=$(date +%s)
echo "pcp-root: debootstrap bookworm into $root (log: $log)" >&2
debootstrap --variant=minbase --arch=amd64 bookworm "$root" "$mirror" >"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	exit 1
}
t_boot=$(date +%s)
echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
# Nothing starts inside the chroot: pcp's postinst would start pmcd there.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
"$top/scripts/chroot-run.sh" "$root" sh -c \
	"apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(printf '%q ' "${pkgs[@]}") && apt-get clean && cd /var/lib/pcp/pmns && ./Make.stdpmid && ./Rebuild -du" \
	>>"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	exit 1
}
t_pkgs=$(date +%s)
rm -f "$root/usr/sbin/policy-rc.d"
# chroot-run.sh unmounted its binds (lazily); the source tree must not be
# reachable from here before anything under root is deleted.
if grep -q " $root/" /proc/mounts; then
	echo "pcp-root: mounts left under $root; not cleaning it" >&2
	exit 1
fi
# What a guest that lives for minutes does not need (it all sits in its RAM).
rm -rf "$root"/usr/share/{doc,man,info,locale} "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/*
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
touch "$dir/.kpmc-done"
echo "pcp-root: ready in $(($(date +%s) - start)) s (debootstrap $((t_boot - start)) s, packages $((t_pkgs - t_boot)) s, $(du -m "$out" | cut -f1) MiB)" >&2
echo "$out"
