# Sourced by the PCP guest tests (two-nodes.sh, scale.sh): their clock
# helpers, and what every such guest is built from.
now() { date +%s.%N | cut -c1-14; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# pmda_guest_setup needs top, work and a fail function; sets root (the
# cached Debian root with PCP), image, kver and kmods (Debian's 6.1 amd64
# kernel and its modules), and leaves work/kpmc.ko (KPMC_MODULE, or built
# for that kernel) and work/pmda-build/pmdakpmc.
pmda_guest_setup() {
	root=$("$top/scripts/pcp-root.sh") || fail "no PCP root"
	read -r image _ _ kver < <("$top/scripts/fetch-kernel.sh" 6.1 amd64) || fail "no 6.1 amd64 kernel"
	kmods=$(dirname "$(dirname "$image")")/lib/modules/$kver
	if [ -n "${KPMC_MODULE:-}" ]; then
		cp "$KPMC_MODULE" "$work/kpmc.ko" || fail "no $KPMC_MODULE"
	else
		"$top/scripts/build-module.sh" x86_64 "$work/mod" >"$work/module.log" 2>&1 ||
			fail "kpmc.ko: $(tail -n 3 "$work/module.log")"
		cp "$work/mod/kpmc.ko" "$work/kpmc.ko"
	fi
	make -s -C "$top/pmda" OUT="$work/pmda-build" >"$work/pmda.log" 2>&1 ||
		fail "pmdakpmc: $(tail -n 3 "$work/pmda.log")"
}
