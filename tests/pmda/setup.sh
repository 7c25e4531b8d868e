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

# The virtio network drivers of the guest kernel (kver, kmods) into overlay
# tree $1, under usr/lib (the root's /lib is a link to it: an overlay "lib"
# would replace the link).
pmda_overlay_netmods() {
	local m
	for m in kernel/drivers/virtio/virtio_ring.ko kernel/drivers/virtio/virtio.ko \
		kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio_pci_legacy_dev.ko \
		kernel/drivers/virtio/virtio_pci.ko kernel/net/core/failover.ko \
		kernel/drivers/net/net_failover.ko kernel/drivers/net/virtio_net.ko; do
		mkdir -p "$1/usr/lib/modules/$kver/$(dirname "$m")"
		cp "$kmods/$m" "$1/usr/lib/modules/$kver/$m" || fail "no $m in $kmods"
	done
}

# pmda_promql PORT QUERY: "hostname instname value" per series of an instant
# query to the Prometheus at 127.0.0.1:PORT (spaces in instance names as _).
pmda_promql() {
	curl -s --max-time 10 -G --data-urlencode "query=$2" "http://127.0.0.1:$1/api/v1/query" |
		jq -r '.data.result[] | "\(.metric.hostname // "-") \(.metric.instname // "-" | gsub(" "; "_")) \(.value[1])"'
}

# pmda_prometheus DIR PORT TARGET...: Debian's Prometheus with its own
# configuration and storage under DIR, scraping the kpmc subtree of each
# pmproxy TARGET every 2 s (honor_labels: the Slurm job label stays job).
pmda_prometheus() {
	local dir=$1 port=$2 targets
	shift 2
	targets=$(printf "'%s', " "$@")
	mkdir -p "$dir/data"
	cat >"$dir/prometheus.yml" <<EOC
global:
  scrape_interval: 2s
  scrape_timeout: 2s
scrape_configs:
  - job_name: kpmc
    # pmdakpmc's job label (the Slurm job) stays job; targets without one get "kpmc".
    honor_labels: true
    metrics_path: /metrics
    params:
      names: [kpmc]
    static_configs:
      - targets: [${targets%, }]
EOC
	prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn >"$dir/log" 2>&1 &
}
