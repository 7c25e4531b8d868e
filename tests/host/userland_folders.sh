#!/usr/bin/env bash
# userland/'s folders call one way: common/ (the /proc/kpmc client, records,
# event names: shared by every program, libkpmc and pmdakpmc) includes only
# its own headers; nothing but cli/ includes a header of cli/ (the kpmc
# command's own parts); a folder's header is named "folder/name.h" from
# another folder, never by a path up ("../").
#   tests/host/userland_folders.sh [TOP]
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
bad=$(
	grep -nE '#include "[^"]*/' userland/common/*.[ch] | sed 's/^/common includes another folder: /'
	grep -rnE '#include "(\.\./)*(userland/)?cli/' userland pmda bench/progs --include='*.[ch]' |
		grep -v '^userland/cli/' | sed 's/^/includes the CLI: /'
	grep -rnE '#include "\.\./' userland --include='*.[ch]' | sed 's/^/a path up: /'
)
if [ -n "$bad" ]; then
	echo "userland_folders: FAIL"
	printf '%s\n' "$bad" | sed 's/^/    /'
	exit 1
fi
echo "userland_folders: PASS $(ls -d userland/*/ | wc -l) folders; common/ self-contained, cli/ included by no other"
