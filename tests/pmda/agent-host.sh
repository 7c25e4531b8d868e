#!/usr/bin/env bash
# pmdakpmc driven by PCP's dbpmda (no pmcd, no kpmc module needed), on a
# machine with pcp installed: make test runs it in node1 of
# tests/pmda/two-nodes.sh (pcp's postinst wants systemd, so the build host
# need not have pcp): what the agent says for an empty configuration, a bad one
# and one whose module is absent, and that its names, help and metric
# descriptions agree. Each check prints "ok" or "FAIL: why"; exit 1 if any
# failed.
#   tests/pmda/agent-host.sh PMDAKPMC WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
agent=${1:?usage: agent-host.sh PMDAKPMC WORKDIR}
work=${2:?usage: agent-host.sh PMDAKPMC WORKDIR}
failed=0
mkdir -p "$work"
ok() { echo "agent-host: ok: $*"; }
bad() { echo "agent-host: FAIL: $*"; failed=1; }

# newhelp builds the help text the agent serves, as Install does.
sed -e '/^@ KPMC\./s/KPMC\./170./' "$top/pmda/help" |
	/usr/lib/pcp/bin/newhelp -n "$top/pmda/root" -v 2 -o "$work/help" >"$work/newhelp.out" 2>&1 &&
	[ ! -s "$work/newhelp.out" ] && ok "newhelp takes pmda/help" || bad "newhelp: $(head -n 3 "$work/newhelp.out")"

# One dbpmda session against the agent with config $1; its output in $2.
run() {
	local conf=$1 out=$2
	shift 2
	{
		echo "open pipe $agent -c $conf -l $work/agent.log -d 170"
	echo "getdesc on"
		printf '%s\n' "$@"
	} | timeout 30 dbpmda -n "$top/pmda/root" -ie >"$out" 2>&1
}
value() { # the value line after metric $2 in dbpmda output $1
	# (numbers come as "N N 0xN" with descriptors on: the first is the value)
	sed -n "/($2)/{n;s/^ *value //p}" "$1" | head -n1 | sed 's/^\([0-9][0-9]*\) .*/\1/'
}

# Names agree with the agent's table: every name in pmns has a descriptor.
names=$(pminfo -n "$top/pmda/root" kpmc | wc -l)
# 6 global, proc and thread 27 each, cpu 26, step 18 (pmc0-15, run_ns, lost).
[ "$names" -eq 122 ] && ok "122 names in pmns" || bad "pmns has $names names, 122 expected"

# Nothing configured: no session, the instance domains empty.
printf 'events instr\n# process comm=x\n' >"$work/empty.conf"
run "$work/empty.conf" "$work/empty.out" "fetch kpmc.session.active kpmc.session.error kpmc.processes kpmc.lost" \
	"instance 170.0" "instance 170.3" "desc kpmc.proc.pmc0" "desc kpmc.proc.alive"
[ "$(value "$work/empty.out" kpmc.session.active)" = 0 ] && ok "empty: session.active 0" ||
	bad "empty: session.active $(value "$work/empty.out" kpmc.session.active)"
[ "$(value "$work/empty.out" kpmc.session.error)" = '""' ] && ok "empty: no error" ||
	bad "empty: error $(value "$work/empty.out" kpmc.session.error)"
[ "$(value "$work/empty.out" kpmc.lost)" = 0 ] && ok "empty: lost 0" || bad "empty: lost"
[ "$(grep -c 'Instance domain is empty' "$work/empty.out")" -eq 2 ] && ok "empty: processes and counters: no instances" ||
	bad "empty: instance domains not empty"
grep -A4 'kpmc.proc.pmc0' "$work/empty.out" | grep -q 'Data Type: 64-bit unsigned int  InDom: 170.0 0x2a800000' &&
	grep -A4 'kpmc.proc.pmc0' "$work/empty.out" | grep -q 'Semantics: counter  Units: count' &&
	ok "kpmc.proc.pmc0: u64 counter, count, indom 170.0" || bad "kpmc.proc.pmc0's descriptor: $(grep -A4 'kpmc.proc.pmc0' "$work/empty.out")"
grep -q 'names nothing to count: no session, no counter taken' "$work/agent.log" && ok "empty: log says no session" ||
	bad "empty: log: $(tail -n 2 "$work/agent.log")"

# A bad line: counted nothing, and the error names file, line and token.
printf 'events instr\nprocess comm=loop user=root\ninterval 10ms\n' >"$work/bad.conf"
run "$work/bad.conf" "$work/bad.out" "fetch kpmc.session.active kpmc.session.error"
want="\"$work/bad.conf:3: token '10ms': not a number of milliseconds (1 to 3600000)\""
[ "$(value "$work/bad.out" kpmc.session.error)" = "$want" ] && ok "bad line: $want" ||
	bad "bad line: error $(value "$work/bad.out" kpmc.session.error), want $want"
[ "$(value "$work/bad.out" kpmc.session.active)" = 0 ] && ok "bad line: session.active 0" || bad "bad line: active"

# Something to count, but no kpmc module on this host (or one: then it counts).
# A command name without its owner: anyone could take it.
printf 'events instr\nprocess comm=loop\n' >"$work/anyone.conf"
run "$work/anyone.conf" "$work/anyone.out" "fetch kpmc.session.active kpmc.session.error"
want="\"$work/anyone.conf:2: token 'comm=loop': a command name is anyone's to take: give its owner on the same line (process comm=loop user=NAME, or uid=N)\""
[ "$(value "$work/anyone.out" kpmc.session.error)" = "$want" ] && ok "comm= without its owner refused" ||
	bad "comm= alone: error $(value "$work/anyone.out" kpmc.session.error), want $want"

printf 'events instr\nprocess comm=loop user=root\n' >"$work/good.conf"
run "$work/good.conf" "$work/good.out" "fetch kpmc.session.active kpmc.session.error"
if [ -d /proc/kpmc ]; then
	[ "$(value "$work/good.out" kpmc.session.active)" = 1 ] && ok "module loaded: session active" || bad "module loaded, no session"
else
	[ "$(value "$work/good.out" kpmc.session.error)" = '"the kpmc module is not loaded (/proc/kpmc)"' ] &&
		[ "$(value "$work/good.out" kpmc.session.active)" = 0 ] && ok "no module: said so, no session" ||
		bad "no module: $(value "$work/good.out" kpmc.session.error)"
fi

# A missing file: nothing counted, the reason served.
run "$work/none.conf" "$work/none.out" "fetch kpmc.session.error"
[ "$(value "$work/none.out" kpmc.session.error)" = "\"$work/none.conf: No such file or directory\"" ] &&
	ok "missing file: said so" || bad "missing file: $(value "$work/none.out" kpmc.session.error)"
exit $failed
