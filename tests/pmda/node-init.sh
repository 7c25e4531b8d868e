#!/bin/sh
# /init of a two-node test guest (tests/pmda/two-nodes.sh): a Debian root
# with PCP (scripts/pcp-root.sh) plus /kpmc (kpmc.ko, pmdakpmc and its
# files, the CLI, workloads). Brings up the user-mode network, loads kpmc,
# installs pmdakpmc with PCP's own Install script, starts pmcd and pmproxy
# (port 44322, forwarded to the host), runs the workload and stays up until
# the host powers it off. Progress lines start with "node:" (the host waits
# for "node: ready").
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /run /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
echo 1 >/proc/sys/kernel/printk

node=0
for w in $(cat /proc/cmdline); do
	case $w in kpmc.node=*) node=${w#kpmc.node=} ;; esac
done
hostname "node$node"
echo "node$node" >/etc/hostname
echo "127.0.0.1 localhost node$node" >/etc/hosts
t0=$(cut -d' ' -f1 /proc/uptime)
say() { echo "node: $* (t=$(cut -d' ' -f1 /proc/uptime)s)"; }
say "init started"

# virtio-net and what it needs, in dependency order (no depmod data here).
kv=$(uname -r)
for m in kernel/drivers/virtio/virtio_ring.ko kernel/drivers/virtio/virtio.ko \
	kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio_pci_legacy_dev.ko \
	kernel/drivers/virtio/virtio_pci.ko kernel/net/core/failover.ko \
	kernel/drivers/net/net_failover.ko kernel/drivers/net/virtio_net.ko; do
	insmod "/lib/modules/$kv/$m" || say "insmod $m failed"
done
# QEMU's user network: the guest is 10.0.2.15, the host's side 10.0.2.2.
busybox ip link set lo up
busybox ip link set eth0 up
busybox ip addr add 10.0.2.15/24 dev eth0
busybox ip route add default via 10.0.2.2
say "network up"

# Node 1, before the module is there: the agent under PCP's dbpmda
# (tests/pmda/agent-host.sh: empty, bad and missing configurations, names,
# help, descriptors), here where pcp is installed rather than on the host.
if [ "$node" = 1 ] && [ -f /kpmc/tests/pmda/agent-host.sh ]; then
	bash /kpmc/tests/pmda/agent-host.sh /kpmc/pmda/pmdakpmc /tmp/agent-host 2>&1 | sed 's/^/node: /'
fi
insmod /kpmc/kpmc.ko || say "insmod kpmc.ko failed"
# pmdakpmc counts as an unprivileged owner would, and the test's events count
# kernel mode (perf's software cpu-clock): perf_event_paranoid 1 allows it.
echo 1 >/proc/sys/kernel/perf_event_paranoid
# Slurm's cgroups (work.sh makes one as slurmstepd would; slurmd makes its own).
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || say "no cgroup2"
say "kpmc: $(grep -m1 '^backend' /proc/kpmc/info 2>/dev/null)"

# pmdakpmc as Debian's package lays it out, then PCP's Install.
mkdir -p /usr/lib/pcp/pmdas/kpmc /var/lib/pcp/pmdas/kpmc /etc/pcp/kpmc
cp /kpmc/pmda/* /usr/lib/pcp/pmdas/kpmc/
for f in /usr/lib/pcp/pmdas/kpmc/*; do ln -sf "$f" /var/lib/pcp/pmdas/kpmc/; done
# First the shipped configuration, which names nobody: no session may exist.
cp /kpmc/default.conf /etc/pcp/kpmc/kpmc.conf
. /etc/pcp.env
mkdir -p /var/log/pcp/pmcd /var/log/pcp/pmproxy /run/pcp
chown -R pcp:pcp /var/log/pcp /run/pcp 2>/dev/null
"$PCP_BINADM_DIR/pmcd" -f >/tmp/pmcd.out 2>&1 &
for i in $(seq 1 60); do pminfo -f pmcd.version >/dev/null 2>&1 && break; sleep 0.5; done
say "pmcd up: $(pminfo -f pmcd.version 2>&1 | grep value)"
(cd /var/lib/pcp/pmdas/kpmc && ./Install </dev/null >/tmp/install.out 2>&1)
say "Install rc=$? ($(tail -n1 /tmp/install.out))"
say "idle agent: $(grep '^sessions:' /proc/kpmc/info), active $(pminfo -f kpmc.session.active | sed -n 's/ *value //p')"
# Then the test's configuration, read again on SIGHUP.
cp /kpmc/kpmc.conf /etc/pcp/kpmc/kpmc.conf
pmsignal -a -s HUP pmdakpmc
for i in $(seq 1 20); do
	pminfo -f kpmc.session.active | grep -q 'value 1' && break
	sleep 0.5
done
say "configured agent: $(grep '^sessions:' /proc/kpmc/info), active $(pminfo -f kpmc.session.active | sed -n 's/ *value //p')"
"$PCP_BINADM_DIR/pmproxy" -f >/tmp/pmproxy.out 2>&1 &
for i in $(seq 1 60); do
	busybox wget -q -O /dev/null http://127.0.0.1:44322/metrics?names=kpmc.session.active && break
	sleep 0.5
done
say "pmproxy up"

# The workload the host compares against (tests/pmda/two-nodes.sh), or the
# Slurm cluster's node (tests/pmda/slurm-cluster.sh).
[ -f /kpmc/work.sh ] && sh /kpmc/work.sh &
[ -f /kpmc/slurm-node.sh ] && sh /kpmc/slurm-node.sh &
say "ready"
# Stay up; the host kills QEMU when it is done.
while :; do sleep 3600; done
