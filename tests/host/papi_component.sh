#!/usr/bin/env bash
# The kpmc component of make papi's PAPI, on this host: papi_component_avail
# lists it; without the module (no /proc/kpmc) disabled with its reason, and
# a kpmc event is refused without a crash; with the module, active with
# native events. Seconds once built; not part of make test (make papi is
# not either).
#   tests/host/papi_component.sh [PAPI_OUT]   (default build/papi)
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
	echo "papi_component: PASS kpmc compiled in, disabled: $want; its events refused"
	exit 0
fi
[[ $status != *Disabled* ]] || fail "/proc/kpmc is here but kpmc is disabled" "$avail"
native=$("$bin/papi_native_avail" -i kpmc 2>&1) || fail "papi_native_avail exited $?" "$native"
count=$(sed -n 's/^Total events reported: *//p' <<<"$native")
[ "${count:-0}" -gt 0 ] || fail "kpmc is active but lists no native event" "$native"
echo "papi_component: PASS kpmc active with $count native events"
