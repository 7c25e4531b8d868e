#!/usr/bin/env bash
# Run make test's guest stages two at a time: a -icount guest is one QEMU
# thread, so two of them keep both cores of a 2-core machine busy. Each stage
# is a make target run with the staged root and what it was made from taken
# as made (-o stage -o all ...: stages share those, so none remakes them); its
# output is kept and printed whole when it ends, so lines never interleave.
#   scripts/run-stages.sh JOBS TARGET...
# Stages are started in the order given (put the slow ones first). Exit
# status: 0; the stages' result files decide (scripts/test-summary.sh).
# Ends with every stage's failed verdicts, by stage.
set -uo pipefail
jobs=${1:?usage: run-stages.sh JOBS TARGET...}
shift
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/kpmc-stages.XXXXXX")
trap 'rm -rf "$logs"' EXIT
t_begin=$(date +%s)

declare -A start_of
finish() { # print a finished stage's output
	local t=$1
	echo "==== $t ($(($(date +%s) - start_of[$t])) s) ===="
	cat "$logs/$t.out"
}
reap() { # wait until fewer than $1 stages run; print those that ended
	local r still
	while :; do
		still=()
		for r in "${running[@]}"; do
			if [ -f "$logs/$r.done" ]; then finish "$r"; else still+=("$r"); fi
		done
		running=("${still[@]}")
		[ ${#running[@]} -lt "$1" ] && return
		sleep 1
	done
}
# Stopped from outside (CI's time limit): a stage's output is printed only
# when it ends, so say which stages were still running, for how long, and
# the last lines each had written.
interrupted() {
	local r
	echo "==== stopped after $(($(date +%s) - t_begin)) s; still running: ${running[*]} ===="
	for r in "${running[@]}"; do
		echo "---- $r: running for $(($(date +%s) - start_of[$r])) s; its last lines:"
		tail -n 25 "$logs/$r.out"
	done
	exit 143
}
trap interrupted TERM INT
running=()
for t in "$@"; do
	reap "$jobs"
	start_of[$t]=$(date +%s)
	echo "---- $t started at $((start_of[$t] - t_begin)) s"
	(
		make -C "$top" --no-print-directory -o stage -o all -o modules -o userland -o progs "$t" >"$logs/$t.out" 2>&1
		touch "$logs/$t.done"
	) &
	running+=("$t")
done
reap 1
wait
# The failed verdicts again, last: a long run's output is often read from
# its end only (CI keeps the tail), where they must not be missing.
fails=$(grep -aHE '(^|: )FAIL( |:|$)' "$logs"/*.out | grep -av 'KPMC-TEST: FAIL' |
	sed "s|^$logs/||; s|\.out:| |" | cut -c1-400 | head -n 40)
if [ -n "$fails" ]; then
	echo "==== failed verdicts, by stage ===="
	printf '%s\n' "$fails"
fi
exit 0
