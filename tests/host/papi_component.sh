#!/usr/bin/env bash
# The kpmc component of make papi's PAPI, on this host: papi_component_avail
# lists it; without the module (no /proc/kpmc) disabled with its reason, and
# a kpmc event is refused without a crash; with the module, active with
# native events. Then on a fake /proc/kpmc (papi_fake_kpmc.c, preloaded):
# papi_kpmc_run.c's event sets through PAPI's API, their configurations
# and counts (multiplexed ones scaled) as the component must give them;
# papi_native_avail --check adding every event and unit mask; and
# PAPI's presets counted by kpmc where it is component 0 (KPMC_PAPI_CPU=kpmc).
# Seconds once built; make test runs it on both amd64 builds (tests/host/run.sh,
# make papi-host).
#   tests/host/papi_component.sh [PAPI_OUT]   (default build/papi; build/papi-cpu-kpmc)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/papi}
bin=$out/bin
if [ ! -x "$bin/papi_component_avail" ]; then
	echo "papi_component: SKIP: build/papi missing; run make papi"
	exit 0
fi
fail() {
	echo "papi_component: FAIL $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'
	exit 1
}
avail=$("$bin/papi_component_avail" 2>&1) || fail "papi_component_avail exited $?" "$avail"
grep -q '^Name: *kpmc ' <<<"$avail" || fail "no kpmc component compiled in" "$avail"
# The line under the component's name says whether it is disabled, and why.
status=$(sed -n '/^Name: *kpmc /{n;p;q}' <<<"$avail")
if [ ! -e /proc/kpmc ]; then
	want='kpmc module not loaded (/proc/kpmc missing)'
	[[ $status == *"Disabled: $want" ]] || fail "kpmc not disabled with '$want'" "$avail"
	cmd=$("$bin/papi_command_line" kpmc:::INST_RETIRED 2>&1)
	rc=$?
	# papi_command_line exits 0 when it adds nothing: what matters is no crash.
	[ "$rc" -lt 128 ] || fail "papi_command_line kpmc:::INST_RETIRED died (status $rc)" "$cmd"
	grep -q 'Failed adding: kpmc:::INST_RETIRED' <<<"$cmd" ||
		fail "papi_command_line did not refuse kpmc:::INST_RETIRED" "$cmd"
	here="disabled: $want; its events refused"
else
	[[ $status != *Disabled* ]] || fail "/proc/kpmc is here but kpmc is disabled" "$avail"
	native=$("$bin/papi_native_avail" -i kpmc 2>&1) || fail "papi_native_avail exited $?" "$native"
	count=$(sed -n 's/^Total events reported: *//p' <<<"$native")
	[ "${count:-0}" -gt 0 ] || fail "kpmc is active but lists no native event" "$native"
	here="active with $count native events"
fi

# The fake module: an AMD Zen 3 PMU of 6 counters (libpfm4's table, whatever
# this machine is), a thread's counts that grow by one unit each read.
src=$(ls -d "$out"/papi-*/src | head -n1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/proc"
nice -n 19 gcc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -I"$top/include" -o "$tmp/fake.so" \
	"$top/tests/host/papi_fake_kpmc.c" -ldl &&
	nice -n 19 gcc -std=gnu11 -Wall -Wextra -Werror -I"$src" -I"$top/include" -o "$tmp/run" \
		"$top/tests/host/papi_kpmc_run.c" -L"$src" -lpapi -lpthread -Wl,-rpath,"$src" ||
	fail "the fake module's programs do not build"
got=$(KPMC_FAKE_PROC=$tmp/proc LD_PRELOAD=$tmp/fake.so "$tmp/run" 2>&1 | sed 's/native=[0-9]*/native=N/')
# Two events on pmc0-1, each read one unit of the fake's counts; eight in
# two sets, each count times the thread's 1000 ns over its set's 600 or
# 400; a seventh without multiplexing has no counter; kernel mode too with
# PAPI_DOM_KERNEL; with PAPI_INHERIT, a created thread's exit record adds
# its 5000 and 7000 (until the reset; the thread's own detach and a lost
# notice add nothing); attached to another thread, its sample's 300 and 400
# while it counts, then its exit's 10 and 20 (no detach asked), or, still
# running at the stop, detached ("pid=N,stop"; its last record waited for,
# none comes here); three threads at once, each with its own counts; an
# overflowing event's handler called (PAPI's software overflow);
# PAPI_TOT_INS and PAPI_TOT_CYC as the same two where kpmc
# is component 0 (its place among the compiled-in components); the same two
# after PAPI_shutdown() and a new PAPI_library_init().
two='pmc0=0xc0,usr0=1,os0=0,pmc1=0x76,usr1=1,os1=0'
set0='pmc0=0xc0,usr0=1,os0=0,pmc1=0x76,usr1=1,os1=0,pmc2=0xc2,usr2=1,os2=0,pmc3=0xc3,usr3=1,os3=0,pmc4=0xc4,usr4=1,os4=0,pmc5=0xc1,usr5=1,os5=0,mux=10'
set1='pmc0=0xc8,usr0=1,os0=0,pmc1=0xc6,usr1=1,os1=0,mux=10'
cidx=$(sed -n '/^Compiled-in components:/,/^Active components:/p' <<<"$avail" | grep '^Name:' |
	grep -n '^Name: *kpmc ' | cut -d: -f1)
cidx=$((cidx - 1))
if [ "$cidx" = 0 ]; then
	presets="presets config=$two
presets enable=1
presets read: 100 200
presets enable=0
presets stop: 100 200"
else
	presets="presets: none, kpmc is component $cidx"
fi
want="kpmc counters=6 multiplexed=24 native=N
two config=$two
two enable=1
two read: 100 200
two enable=0
two stop: 100 200
eight config=$set0;$set1
eight enable=1
eight read: 167 333 500 667 833 1000 25 50
eight enable=0
eight stop: 167 333 500 667 833 1000 25 50
seven refused kpmc:::RETIRED_NEAR_RETURNS: Event exists, but cannot be counted due to hardware resource limits
kernel config=pmc0=0xc0,usr0=1,os0=1
kernel enable=1
kernel read: 100
kernel enable=0
kernel stop: 100
inherit config=$two
inherit enable=1
inherit read: 5100 7200
inherit enable=0
inherit stop: 100 200
attached config=$two,tbs=100
attached enable=pid=5555
attached read: 300 400
attached enable=pid=5555
attached stop: 10 20
detached config=$two,tbs=100
detached enable=pid=5555
detached read: 300 400
detached enable=pid=5555,stop
detached stop: 0 0
thread 0 read: 100 200 stop: 100 200
thread 1 read: 100 200 stop: 100 200
thread 2 read: 100 200 stop: 100 200
overflow: handler called
$presets
kpmc counters=6 multiplexed=24 native=N
again config=$two
again enable=1
again read: 100 200
again enable=0
again stop: 100 200"
[ "$got" = "$want" ] || fail "on the fake module (got, then wanted):" "$got
--
$want"
# papi_native_avail --check on the fake: every event added, unit masks (Zen 3's
# LS_DISPATCH has three) enumerated and added too.
check=$(KPMC_FAKE_PROC=$tmp/proc LD_PRELOAD=$tmp/fake.so "$bin/papi_native_avail" --check -i kpmc 2>&1)
na=$(grep -c '<NA>' <<<"$check")
[ "$na" = 0 ] && grep -q '^| *:LD_DISPATCH ' <<<"$check" ||
	fail "papi_native_avail --check on the fake module: $na events not added, or no unit masks" "$check"
[ "$cidx" = 0 ] && here="$here; component 0, with presets"
echo "papi_component: PASS kpmc compiled in, $here; on a fake module: events listed, sets written (multiplexed, kernel mode), counts read (multiplexed: scaled; inherited; attached; three threads) and reset, overflow, PAPI started twice; every event and unit mask added"
