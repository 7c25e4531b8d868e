#!/usr/bin/env bash
# kpmc-top in a real terminal (tmux): shows the threads of a record stream,
# re-sorts on a key, and quitting gives the terminal back.
#   tests/host/top.sh KPMC-TOP RECORDS WORKDIR
set -uo pipefail
top=${1:?} recs=${2:?} work=${3:?}
sock=kpmc-top-test-$$
t() { tmux -L "$sock" "$@"; }
fail=""
t new-session -d -x 120 -y 30 -s top "env -i TERM=xterm PATH=/usr/bin:/bin bash --norc --noprofile"
sleep 0.5
t send-keys -t top "$top -R $recs; echo TOP-EXIT-\$?" Enter
sleep 1.5
t capture-pane -p -t top >"$work/top1.txt"
# Rows: tid first. Default sort: run time, descending: thread 101 ran longer.
order1=$(awk '$1 == "100" || $1 == "101" { printf "%s ", $1 }' "$work/top1.txt")
grep -q 'kpmc top: .*threads 2  lost 5' "$work/top1.txt" || fail="$fail no title line;"
grep -q '4:RUN_MS' "$work/top1.txt" && grep -q '5:pmc0/ms' "$work/top1.txt" || fail="$fail no column header;"
grep -q 'q quit' "$work/top1.txt" || fail="$fail no key footer;"
[ "$order1" = "101 100 " ] || fail="$fail first order '$order1', expected '101 100 ';"
t send-keys -t top r
sleep 1
t capture-pane -p -t top >"$work/top2.txt"
order2=$(awk '$1 == "100" || $1 == "101" { printf "%s ", $1 }' "$work/top2.txt")
[ "$order2" = "100 101 " ] || fail="$fail after 'r' order '$order2', expected '100 101 ';"
t send-keys -t top q
sleep 1
t capture-pane -p -t top >"$work/top3.txt"
grep -q 'TOP-EXIT-0' "$work/top3.txt" || fail="$fail no clean exit after q;"
grep -q 'kpmc top:' "$work/top3.txt" && fail="$fail the view stayed on screen after q;"
# -m: a metric column per thread, the same values kpmc -m prints for the
# same records (multiplexed sets scaled alike); sorting by it (column 9).
kpmc=$(dirname "$top")/kpmc
"$kpmc" -R "$recs" -A -m 'r=pmc1/time' -m 'c=pmc1*2' 2>/dev/null |
	awk '/^\[Metrics\]/ { m = 1; next } m && $2 != "total" && $1 != "pid" { print $2, $3, $4 }' >"$work/top_want.txt"
t send-keys -t top "$top -m 'r=pmc1/time' -m 'c=pmc1*2' -R $recs; echo TOP-EXIT-\$?" Enter
sleep 1.5
t send-keys -t top 9
sleep 1
t capture-pane -p -t top >"$work/top4.txt"
grep -q '8:r' "$work/top4.txt" && grep -q '9:c' "$work/top4.txt" || fail="$fail no metric columns;"
awk '$1 == "100" || $1 == "101" { print $1, $9, $10 }' "$work/top4.txt" | sort >"$work/top_got.txt"
sort "$work/top_want.txt" | cmp -s - "$work/top_got.txt" ||
	fail="$fail metric cells '$(tr '\n' ' ' <"$work/top_got.txt")', kpmc -m says '$(tr '\n' ' ' <"$work/top_want.txt")';"
order3=$(awk '$1 == "100" || $1 == "101" { printf "%s ", $1 }' "$work/top4.txt")
[ "$order3" = "101 100 " ] || fail="$fail sorted by c: order '$order3', expected '101 100 ';"
t send-keys -t top q
sleep 1
t send-keys -t top "$top -m 'r=pmc1/' -R $recs; echo TOP-EXIT-\$?" Enter
sleep 1
t capture-pane -p -t top >"$work/top5.txt"
grep -q "expected an operand after '/'" "$work/top5.txt" && grep -q 'TOP-EXIT-2' "$work/top5.txt" ||
	fail="$fail a bad -m not refused with the token;"
t kill-server 2>/dev/null
if [ -n "$fail" ]; then
	echo "top: FAIL$fail"
	sed 's/^/    /' "$work/top1.txt" | head -n 8
	exit 1
fi
echo "top: PASS (order $order1-> ${order2}after r; terminal restored; -m cells $(tr '\n' ' ' <"$work/top_got.txt")equal kpmc -m's)"
