# arm64: a thread granted EL0 reads of its counters must not see, in the
# counters its configuration does not use, the counts of the thread that ran
# before it. Two unprivileged users (uid 1000 counting pmc0..pmc3, uid 1001
# counting only the last counter), each with its /proc/kpmc/self page mapped,
# ping-pong over pipes on the one CPU, so the CPU goes straight from one to
# the other and EL0 access stays granted across the switch. At each wake-up
# uid 1001 reads every counter at EL0 (tests/progs/el0peek.c): all of them
# but its own must read 0, in every one of the 200 rounds. At
# perf_event_paranoid 2 (upstream's default; Debian's 3 refuses all users).
load
r=""
P=/proc/sys/kernel/perf_event_paranoid
old_paranoid=$(cat $P)
echo 2 >$P
"$BIN/el0peek" 200 >$OUT/el0peek.txt 2>&1 || r="el0peek failed: $(cat $OUT/el0peek.txt);"
echo "$old_paranoid" >$P
cat $OUT/el0peek.txt
# The owner really counted: 200 rounds of spin(50000), 2 instructions each,
# plus its pipe calls' user-mode instructions.
i=$(sed -n 's/^el0peek owner rounds=200 pmc1=\([0-9]*\)$/\1/p' $OUT/el0peek.txt)
[ -n "$i" ] && [ "$i" -ge 20000000 ] && [ "$i" -le 20500000 ] ||
	r="$r the owner's pmc1 '$i' is not 20,000,000..20,500,000 instructions;"
set -- $(sed -n 's/^el0peek peeker rounds=200 granted=\([0-9]*\) leaks=\([0-9]*\) traps=\([0-9]*\) max=\([0-9]*\) counters=\([0-9]*\)$/\1 \2 \3 \4 \5/p' $OUT/el0peek.txt)
[ "$1" = 200 ] || r="$r the peeker was granted EL0 reads in '$1' of 200 rounds;"
[ "$3" = 0 ] || r="$r $3 EL0 reads trapped;"
[ "$2" = 0 ] && [ "$4" = 0 ] ||
	r="$r uid 1001 read uid 1000's counts at EL0 in '$2' of 200 rounds (largest '$4');"
verdict arm64_el0_no_counts_of_previous_thread "$r"
rmmod kpmc

# kpmc's mappings stay out of a fork's child even when the process asks
# otherwise: madvise(MADV_DOFORK) on the self page, the ring's control page
# and its records is refused (VM_IO), and the child has none of them.
load
r=""
"$BIN/nofork" >$OUT/nofork.txt 2>&1 || r="nofork failed: $(cat $OUT/nofork.txt);"
cat $OUT/nofork.txt
# (The patched debug kernels are built without madvise: ENOSYS, errno 38.)
grep -Eq '^nofork dofork self=(EINVAL|errno38) ctrl=(EINVAL|errno38) data=(EINVAL|errno38) child self=0 ring=0$' $OUT/nofork.txt ||
	r="$r MADV_DOFORK accepted, or a mapping inherited by the child;"
verdict kpmc_mappings_not_inheritable "$r"
rmmod kpmc
