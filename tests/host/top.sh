#!/usr/bin/env bash
# kpmc-top in a real terminal (tmux): shows the threads of a record stream,
# re-sorts on a key, and quitting gives the terminal back.
#   tests/host/top.sh KPMC-TOP RECORDS WORKDIR
# Each step waits for the screen to show that its key was taken (the footer's
# sort state, the exit line), never a fixed time: on a loaded machine a
# second is not enough for a terminal program to draw.
set -uo pipefail
top=${1:?} recs=${2:?} work=${3:?}
sock=kpmc-top-test-$$
t() { tmux -L "$sock" "$@"; }
# screen FILE PATTERN: capture the pane into FILE once it shows PATTERN
# (an extended regex), or after 30 s with what it shows then.
screen() {
	local i
	for i in $(seq 300); do
		t capture-pane -p -t top >"$1"
		grep -Eq -- "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}
fail=""
t new-session -d -x 120 -y 30 -s top "env -i TERM=xterm PATH=/usr/bin:/bin bash --norc --noprofile"
screen "$work/top0.txt" '[$#] *$' || fail="$fail no shell prompt;"
t send-keys -t top "$top -R $recs; echo TOP-EXIT-A-\$?" Enter
screen "$work/top1.txt" 'sort: column 4 descending' || fail="$fail no footer with the default sort;"
# Rows: tid first. Default sort: run time, descending: thread 101 ran longer.
order1=$(awk '$1 == "100" || $1 == "101" { printf "%s ", $1 }' "$work/top1.txt")
grep -q 'kpmc top: .*threads 2  lost 5' "$work/top1.txt" || fail="$fail no title line;"
grep -q '4:RUN_MS' "$work/top1.txt" && grep -q '5:pmc0/ms' "$work/top1.txt" || fail="$fail no column header;"
grep -q 'q quit' "$work/top1.txt" || fail="$fail no key footer;"
[ "$order1" = "101 100 " ] || fail="$fail first order '$order1', expected '101 100 ';"
t send-keys -t top r
screen "$work/top2.txt" 'sort: column 4 ascending' || fail="$fail 'r' not taken;"
order2=$(awk '$1 == "100" || $1 == "101" { printf "%s ", $1 }' "$work/top2.txt")
[ "$order2" = "100 101 " ] || fail="$fail after 'r' order '$order2', expected '100 101 ';"
t send-keys -t top q
screen "$work/top3.txt" '^TOP-EXIT-A-[0-9]' || fail="$fail no exit after q;"
grep -q 'TOP-EXIT-A-0' "$work/top3.txt" || fail="$fail no clean exit after q;"
grep -q 'kpmc top:' "$work/top3.txt" && fail="$fail the view stayed on screen after q;"
# -m: a metric column per thread, the same values kpmc -m prints for the
# same records (multiplexed sets scaled alike); sorting by it (column 9).
kpmc=$(dirname "$top")/kpmc
"$kpmc" -R "$recs" -A -m 'r=pmc1/time' -m 'c=pmc1*2' 2>/dev/null |
	awk '/^\[Metrics\]/ { m = 1; next } m && $2 != "total" && $1 != "pid" { print $2, $3, $4 }' >"$work/top_want.txt"
t send-keys -t top "$top -m 'r=pmc1/time' -m 'c=pmc1*2' -R $recs; echo TOP-EXIT-B-\$?" Enter
screen "$work/top4a.txt" 'sort: column 4 descending' || fail="$fail no footer with metric columns;"
t send-keys -t top 9
screen "$work/top4.txt" 'sort: column 9 descending' || fail="$fail '9' not taken;"
grep -q '8:r' "$work/top4.txt" && grep -q '9:c' "$work/top4.txt" || fail="$fail no metric columns;"
awk '$1 == "100" || $1 == "101" { print $1, $9, $10 }' "$work/top4.txt" | sort >"$work/top_got.txt"
sort "$work/top_want.txt" | cmp -s - "$work/top_got.txt" ||
	fail="$fail metric cells '$(tr '\n' ' ' <"$work/top_got.txt")', kpmc -m says '$(tr '\n' ' ' <"$work/top_want.txt")';"
order3=$(awk '$1 == "100" || $1 == "101" { printf "%s ", $1 }' "$work/top4.txt")
[ "$order3" = "101 100 " ] || fail="$fail sorted by c: order '$order3', expected '101 100 ';"
t send-keys -t top q
screen "$work/top4b.txt" '^TOP-EXIT-B-[0-9]' || fail="$fail no exit after the second q;"
# Sets taking turns (-c twice): each metric gets its 90% bar as a share of
# it, the count's own bar carried through (a: pmc0, of set 0 only, so its
# estimate's bar as kpmc -A prints it; b: pmc1, in both sets, so counted: 0).
want_bar=$("$kpmc" -R "$recs" -A -c pmc0,pmc1 -c pmc1 2>/dev/null |
	awk '$1 == "100" && $2 == "100" && $3 == "0" { e = $6 }
		$1 == "+-90%" && $2 == "100" && $3 == "0" && h == "" { h = $6 }
		END { if (e > 0) printf "%.2g%%", 100 * h / e }')
t resize-window -t top -x 160 -y 30
t send-keys -t top "$top -R $recs -m 'a=pmc0/time' -m 'b=pmc1*2' -c pmc0,pmc1 -c pmc1; echo TOP-EXIT-D-\$?" Enter
screen "$work/top6.txt" 'sort: column 4 descending' || fail="$fail no footer with metric bars;"
grep -q '8:a *+-90% *9:b *+-90%' "$work/top6.txt" || fail="$fail no bar columns in the header;"
got_bar=$(awk '$1 == "100" { print $10, $12 }' "$work/top6.txt")
[ -n "$want_bar" ] && [ "$got_bar" = "$want_bar 0" ] ||
	fail="$fail metric bars '$got_bar', expected '$want_bar 0' (kpmc -A's bar of pmc0; pmc1 counted);"
t send-keys -t top q
screen "$work/top6b.txt" '^TOP-EXIT-D-[0-9]' || fail="$fail no exit after the third q;"
t send-keys -t top "$top -m 'r=pmc1/' -R $recs; echo TOP-EXIT-C-\$?" Enter
screen "$work/top5.txt" '^TOP-EXIT-C-[0-9]' || fail="$fail a bad -m did not end;"
grep -q "expected an operand after '/'" "$work/top5.txt" && grep -q 'TOP-EXIT-C-2' "$work/top5.txt" ||
	fail="$fail a bad -m not refused with the token;"
t kill-server 2>/dev/null
if [ -n "$fail" ]; then
	echo "top: FAIL$fail"
	sed 's/^/    /' "$work/top1.txt" | head -n 8
	exit 1
fi
echo "top: PASS (order $order1-> ${order2}after r; terminal restored; -m cells $(tr '\n' ' ' <"$work/top_got.txt")equal kpmc -m's; bars $got_bar)"
