# arm64, as an unprivileged user (uid 1000): what memory samples must not
# give away.
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

# fmt=mem of a set that counts user mode only. callchain sys 1000000 runs
# 5,013,816 user instructions (5 per getppid, and its start-up); QEMU counts
# them exactly, so a sample every 10,000 gives 501 EBS records, each with
# its MEM record: 499 to 503 allows for a start-up path a few instructions
# longer or shorter. An event counter's overflow interrupt comes late under
# QEMU: taken after the svc, in EL1, for every one of them on 2404461 (the
# kernel pc of each, the KASLR slide). The cycle counter's (pmc0) is exact,
# at the user pc: the same must hold for it. A user at paranoid 2 may not
# count kernel mode: no kernel address in any MEM record, every record there.
load
r=""
echo 2 >$P
for c in pmc1=0x8,ebs1=10000 pmc0,ebs0=10000; do
	$U kpmc -k 65536 -o $A/u.txt -c $c,mem=1 -- "$BIN/callchain" sys 1000000 \
		>$A/u.out 2>&1 || r="$r kpmc -c $c,mem=1 as uid 1000 failed: $(tail -n 3 $A/u.out | tr '\n' '|');"
	set -- $(mem_rows $A/u.txt)
	n=$1 kern=$2 user=$3 hidden=$4
	ebs=$(trace_count $A/u.txt ebs)
	echo "kaslr: uid 1000, $c: $n mem records, $kern with a kernel address, $user at a user ip, $hidden kernel without address, $ebs ebs"
	grep ' mem ' $A/u.txt | awk '{ print $5, $6 }' | sort | uniq -c | sort -rn | head -n 3
	[ "$kern" = 0 ] || r="$r $c: $kern of $n MEM records carry a kernel address;"
	[ "$n" -ge 499 ] && [ "$n" -le 503 ] && [ "$n" = "$ebs" ] &&
		[ $((user + hidden)) = "$n" ] ||
		r="$r $c: $n MEM records ($user at a user ip, $hidden kernel without address) for $ebs EBS records, expected 499-503;"
done
verdict arm64_attack_mem_no_kernel_address_unprivileged "$r"

# The check is the set's right, not a blanket filter: root's set that counts
# kernel mode (os0=1) gets the kernel's addresses. The loop's cycles are
# mostly the kernel's (getppid's path; 32,910 of 50,723 samples in one run),
# so at least the 499 samples of its user part, and at least half the
# samples at a kernel address (the cycle counter's interrupt is exact).
r=""
kpmc -k 65536 -o $A/root.txt -c pmc0,os0=1,ebs0=10000,mem=1 -- "$BIN/callchain" sys 1000000 \
	>$A/root.out 2>&1 || r="kpmc as root failed: $(tail -n 3 $A/root.out | tr '\n' '|');"
set -- $(mem_rows $A/root.txt)
n=$1 kern=$2
echo "kaslr: root, os0=1: $n mem records, $kern with a kernel address"
[ "$n" -ge 499 ] && [ $((kern * 2)) -ge "$n" ] ||
	r="$r root's kernel-mode set: $kern of $n MEM records at a kernel address, expected at least half of at least 499;"
verdict arm64_attack_mem_kernel_address_when_allowed "$r"
echo $paranoid >$P
rmmod kpmc
