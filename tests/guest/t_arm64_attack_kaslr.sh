# arm64, as an unprivileged user (uid 1000): what memory samples and the
# perf backend's configurations must not give away or cost.
P=/proc/sys/kernel/perf_event_paranoid
U="$BIN/runas 1000"
A=/tmp/kpmc-attack
mkdir -p $A
chmod 777 $A
paranoid=$(cat $P)

# mem_rows FILE: "rows kernel_address user_ip hidden" of a trace's MEM rows:
# a kernel address is one at or above 0xffff000000000000 (16 hex digits from
# ffff) in ip= or addr=; user_ip: a nonzero ip below that; hidden: a kernel
# sample without its address ("ip=0x0 kernel").
mem_rows() {
	awk '$4 == "mem" {
		n++; k = 0; u = 0
		for (i = 5; i <= NF; i++) {
			if ($i !~ /^(ip|addr)=0x/) continue
			v = substr($i, index($i, "=0x") + 3)
			if (length(v) == 16 && substr(v, 1, 4) == "ffff") k = 1
			else if ($i ~ /^ip=/ && v != "0") u = 1
		}
		kern += k; user += u && !k
		if ($5 == "ip=0x0" && $6 == "kernel") hidden++
	} END { printf "%d %d %d %d\n", n, kern, user, hidden }' "$1"
}

# fmt=mem of a set that counts user mode only. callchain sys 100000 runs
# 513,816 user instructions (5 per getppid, and its start-up); QEMU counts
# them exactly, so a sample every 10,000 (the least a user may ask for)
# gives 51 EBS records, each with its MEM record: 49 to 53 allows for a
# start-up path a few instructions longer or shorter. (10^5 calls, not
# more: on the PREEMPT_RT debug kernel each 10^5 cost 2 guest seconds, 20 s
# of make test, per set.)
# An event counter's overflow interrupt comes late under QEMU: taken after
# the svc, in EL1, for every one of them on 2404461 (the kernel pc of each,
# the KASLR slide). The cycle counter's (pmc0) is exact,
# at the user pc: the same must hold for it. A user at paranoid 2 may not
# count kernel mode: no kernel address in any MEM record, every record there.
load
r=""
echo 2 >$P
for c in pmc1=0x8,ebs1=10000 pmc0,ebs0=10000; do
	$U kpmc -k 65536 -o $A/u.txt -c $c,mem=1 -- "$BIN/callchain" sys 100000 \
		>$A/u.out 2>&1 || r="$r kpmc -c $c,mem=1 as uid 1000 failed: $(tail -n 3 $A/u.out | tr '\n' '|');"
	set -- $(mem_rows $A/u.txt)
	n=$1 kern=$2 user=$3 hidden=$4
	ebs=$(trace_count $A/u.txt ebs)
	echo "kaslr: uid 1000, $c: $n mem records, $kern with a kernel address, $user at a user ip, $hidden kernel without address, $ebs ebs"
	grep ' mem ' $A/u.txt | awk '{ print $5, $6 }' | sort | uniq -c | sort -rn | head -n 3
	[ "$kern" = 0 ] || r="$r $c: $kern of $n MEM records carry a kernel address;"
	[ "$n" -ge 49 ] && [ "$n" -le 53 ] && [ "$n" = "$ebs" ] &&
		[ $((user + hidden)) = "$n" ] ||
		r="$r $c: $n MEM records ($user at a user ip, $hidden kernel without address) for $ebs EBS records, expected 49-53;"
done
verdict arm64_attack_mem_no_kernel_address_unprivileged "$r"

# The check is the set's right, not a blanket filter: root's set that counts
# kernel mode (os0=1) gets the kernel's addresses. The loop's cycles are
# mostly the kernel's (getppid's path: about 500 cycles a call on 6.1, 5.07e7
# in all for 100,000 calls, of which 5e5 in user mode), so at least 200
# samples at a period of 100,000 (a call's round trip is more than 200
# cycles on every kernel), and at least half of them at a kernel address
# (the cycle counter's interrupt is exact). A longer run or a shorter period
# takes the debug kernels (lockdep, KASAN) past the guest's time limit;
# there a call takes about 14,500 cycles (14,528 samples for 100,000 calls
# on PREEMPT_RT), and 10,000 calls give still 1,400 samples.
ncalls=100000
debug_kernel && ncalls=10000
r=""
kpmc -k 65536 -o $A/root.txt -c pmc0,os0=1,ebs0=100000,mem=1 -- "$BIN/callchain" sys $ncalls \
	>$A/root.out 2>&1 || r="kpmc as root failed: $(tail -n 3 $A/root.out | tr '\n' '|');"
set -- $(mem_rows $A/root.txt)
n=$1 kern=$2
echo "kaslr: root, os0=1: $n mem records, $kern with a kernel address"
[ "$n" -ge 200 ] && [ $((kern * 2)) -ge "$n" ] ||
	r="$r root's kernel-mode set: $kern of $n MEM records at a kernel address, expected at least half of at least 200;"
verdict arm64_attack_mem_kernel_address_when_allowed "$r"
echo $paranoid >$P
rmmod kpmc

# The perf backend: a configuration write creates no perf event (before,
# each write made every counter an enabled CPU-wide event at once,
# unaccounted, with no limit, before any privilege check). A user's write
# gets that far at paranoid 0 or below only: above, the configuration's
# check of its events (perf_check_event, a CPU-wide kernel counter made in
# the writer's name) is refused by perf itself (EACCES). Seen by perf: root's
# CPU-wide event on CPU 0 (perfhold) keeps a counter the whole time
# (running = enabled) while uid 1000 holds a configuration of eight
# hardware events, more than this PMU's six event counters and cycle counter.
load backend=perf
r=""
echo 0 >$P
CFG8=pmc0=0x400000008,pmc1=0x400000011,pmc2=0x400000008,pmc3=0x400000011,pmc4=0x400000008,pmc5=0x400000011,pmc6=0x400000008,pmc7=0x400000011
rm -f $A/written
$U sh -c "echo $CFG8 >/proc/kpmc/config && touch $A/written; sleep 5" >$A/hold.out 2>&1 &
hp=$!
i=0
while [ ! -f $A/written ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -f $A/written ] || r="uid 1000's configuration write failed: $(cat $A/hold.out);"
"$BIN/perfhold" 2 >$A/perf.txt 2>&1
enabled=$(sed -n 's/.*enabled=\([0-9]*\).*/\1/p' $A/perf.txt)
running=$(sed -n 's/.*running=\([0-9]*\).*/\1/p' $A/perf.txt)
echo "perf backend: perfhold beside uid 1000's configuration: enabled $enabled running $running"
[ -n "$enabled" ] && [ "$enabled" -gt 0 ] && [ "$running" = "$enabled" ] ||
	r="$r perf's event was off its counter ${enabled:-?} - ${running:-?} ns: kpmc's events took it ($(cat $A/perf.txt));"
kill $hp 2>/dev/null
wait $hp 2>/dev/null
echo $paranoid >$P
verdict arm64_attack_perf_backend_config_creates_no_events "$r"

# What a user without CAP_PERFMON may hold once counting: kpmc.perf_user_events.
# At 16 on this one-CPU guest: two enabled configurations of eight events
# each, the third refused with the reason, root not limited; once the two
# are gone the user may count again.
rmmod kpmc
load backend=perf perf_user_events=16
r=""
echo 0 >$P
$U kpmc -A -c $CFG8 -- sleep 4 >$A/c1.out 2>&1 &
p1=$!
$U kpmc -A -c $CFG8 -- sleep 4 >$A/c2.out 2>&1 &
p2=$!
i=0
while [ "$(sed -n 's/^threads_monitored: //p' /proc/kpmc/info)" != 2 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
$U kpmc -A -c $CFG8 -- true >$A/c3.out 2>&1 && r="third configuration of uid 1000 accepted: $(cat $A/c3.out);"
grep -q 'this user holds 16 perf events, 8 more would pass the limit without CAP_PERFMON, kpmc.perf_user_events=16' $A/c3.out ||
	r="$r third refused without the reason: $(tail -n 2 $A/c3.out | tr '\n' '|');"
kpmc -A -c $CFG8 -- true >$A/c4.out 2>&1 || r="$r root refused: $(tail -n 2 $A/c4.out | tr '\n' '|');"
wait $p1 || r="$r first holder failed: $(tail -n 2 $A/c1.out | tr '\n' '|');"
wait $p2 || r="$r second holder failed: $(tail -n 2 $A/c2.out | tr '\n' '|');"
# The holders' events go with their configurations, a grace period later.
i=0
until $U kpmc -A -c $CFG8 -- true >$A/c5.out 2>&1 || [ $i -ge 20 ]; do sleep 0.25; i=$((i + 1)); done
[ $i -lt 20 ] || r="$r uid 1000 still refused after its holders ended: $(tail -n 2 $A/c5.out | tr '\n' '|');"
echo $paranoid >$P
verdict arm64_attack_perf_backend_user_event_limit "$r"
rmmod kpmc
