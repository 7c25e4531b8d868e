#!/usr/bin/env bash
# apt options that reach the Debian suites this machine's sources list does not
# name (bullseye, bookworm-backports, trixie, trixie-backports), for both
# amd64 and arm64, in a state directory of kpmc's own: the host's apt state is
# never touched. Makes and refreshes (daily) that state, then prints the
# options for `apt-get $o download ...` / `apt-cache $o show ...`.
#   o=$(scripts/apt-extra.sh)
set -euo pipefail
A=${KPMC_APT_STATE:-/var/cache/kpmc/apt-extra}
mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
o="-o Dir::Etc::sourcelist=$A/sources.list -o Dir::Etc::sourceparts=/nonexistent"
o="$o -o Dir::State::Lists=$A/lists -o Dir::Cache=$A/cache"
o="$o -o APT::Architectures::=amd64 -o APT::Architectures::=arm64"
want=$(for s in bullseye bookworm bookworm-backports trixie trixie-backports; do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
done)
mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
exec 9>"$A/lock"
flock 9
stamp=$A/updated
if [ "$(cat "$A/sources.list" 2>/dev/null)" != "$want" ] ||
	[ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	echo "$want" >"$A/sources.list"
	# shellcheck disable=SC2086
	apt-get $o update -q >&2 || { echo "apt-extra: apt-get update failed" >&2; exit 1; }
	touch "$stamp"
fi
echo "$o"
