# arm64: call stacks (fmt=callstack) of callchain, main -> a -> b -> c, built
# with frame pointers (Makefile: -fno-omit-frame-pointer,
# -mno-omit-leaf-frame-pointer, no sibling calls), sampled on the cycle
# counter (exact under -icount: an event counter's interrupt comes late in
# QEMU 7.2), recorded into a text trace and symbolized by kpmc report.
# Frames below main are libc's start-up (_start, __libc_start_main_impl,
# __libc_start_call_main in this static glibc): they may differ between libc
# builds, so only main and the frames above it are held exact.
STACK_N=2000000		# c's iterations: 4,000,000 instructions
STACK_P=100000

# stack_total N: the user-mode instructions of "callchain spin N", the smaller of two runs (LLSC_SLACK).
stack_total() {
	a=$(kpmc -A -c pmc1=0x8 -- "$BIN/callchain" spin "$1" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
	b=$(kpmc -A -c pmc1=0x8 -- "$BIN/callchain" spin "$1" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
	[ -n "$a" ] && [ -n "$b" ] && { [ "$a" -le "$b" ] && echo "$a" || echo "$b"; }
}

# fn_addr FILE NAME: the address callchain printed for function NAME.
fn_addr() {
	sed -n "s/^callchain .*$2=\(0x[0-9a-f]*\).*/\1/p" "$1" | head -n 1
}

# report_row FILE NAME MODE: "total %total self %self" of a function in a kpmc report.
report_row() {
	awk -v n="$2" -v m="$3" '$5 == m && $6 == n { print $1, $2, $3, $4; exit }' "$1"
}

# awk's hex(s): the value of "0x..." (busybox awk does not read hexadecimal; user addresses fit a double).
HEXFN='function hex(s,  i, n) { n = 0; s = tolower(s); for (i = 3; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }'

# samples_with FOLDED NAME: the samples whose folded stack has frame NAME.
samples_with() {
	awk -v n="$2" '{ k = split($1, f, ";"); for (i = 1; i <= k; i++) if (f[i] == n) { s += $2; break } } END { print s + 0 }' "$1"
}

load

# ---- user stacks: every sample in c is c, b, a, main ----
r=""
TOTAL=$(stack_total $STACK_N)
kpmc -o $OUT/cs.txt -c pmc0,ebs0=$STACK_P,fmt=callstack -- "$BIN/callchain" spin $STACK_N >$OUT/cs.out 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/cs.out | tr '\n' '|');"
MAIN=$(fn_addr $OUT/cs.out main) A=$(fn_addr $OUT/cs.out a) B=$(fn_addr $OUT/cs.out b) C=$(fn_addr $OUT/cs.out c)
[ -n "$MAIN" ] && [ -n "$C" ] || r="$r callchain printed no addresses;"
nebs=$(trace_count $OUT/cs.txt ebs)
nstack=$(trace_count $OUT/cs.txt stack)
[ "$nebs" -ge $((TOTAL / STACK_P - 1)) ] && [ "$nebs" -le $((TOTAL / STACK_P + 1)) ] ||
	r="$r $nebs samples, expected $TOTAL/$STACK_P = $((TOTAL / STACK_P)) +/-1;"
[ "$nstack" = "$nebs" ] || r="$r $nstack stack lines for $nebs samples;"
grep -q '^# stack of sample\|^# lost' $OUT/cs.txt && r="$r stacks given up or records lost: $(grep '^# ' $OUT/cs.txt | head -n 2 | tr '\n' '|');"
grep -q "^map [0-9]* 0x[0-9a-f]*-0x[0-9a-f]* 0x0 [0-9a-f]\{40\} $BIN/callchain\$" $OUT/cs.txt ||
	r="$r no map line with a build-id for $BIN/callchain;"
# The raw frames against the addresses callchain printed: the leaf in c,
# then the return addresses just after the calls in b, a and main.
inc=$(awk -v c=$((C)) -v b=$((B)) -v a=$((A)) -v m=$((MAIN)) "$HEXFN"'
	$4 == "stack" {
		u = ""; for (i = 5; i <= NF; i++) if ($i ~ /^u=/) u = substr($i, 3)
		k = split(u, f, ",")
		for (i = 1; i <= k; i++) f[i] = hex(f[i])
		if (f[1] < c || f[1] >= c + 64) { other++; next }
		if (k < 4 || f[2] <= b || f[2] > b + 16 || f[3] <= a || f[3] > a + 16 || f[4] <= m || f[4] > m + 512) bad++
		else good++
	}
	END { print good + 0, bad + 0, other + 0 }' $OUT/cs.txt)
read -r raw_c raw_bad raw_other <<EOF
$inc
EOF
[ "$raw_bad" = 0 ] || r="$r $raw_bad stacks with the leaf in c whose next frames are not in b, a, main;"
kpmc report --folded $OUT/cs.txt >$OUT/cs.folded 2>$OUT/cs.report.err || r="$r kpmc report --folded failed: $(cat $OUT/cs.report.err);"
# Folded, each sample whose leaf is c: exactly main;a;b;c from main up.
csamples=$(awk '$1 ~ /(^|;)c$/ { s += $2 } END { print s + 0 }' $OUT/cs.folded)
cbad=$(awk '$1 ~ /(^|;)c$/ && $1 !~ /(^|;)main;a;b;c$/ { n += $2 } END { print n + 0 }' $OUT/cs.folded)
[ "$cbad" = 0 ] || r="$r $cbad samples in c not under main;a;b: $(grep 'c [0-9]*$' $OUT/cs.folded | head -n 2 | tr '\n' '|');"
[ "$csamples" = "$raw_c" ] || r="$r $csamples samples in c by symbols, $raw_c by the raw addresses;"
CI=$((2 * STACK_N))
[ "$csamples" -ge $((CI / STACK_P - 1)) ] && [ "$csamples" -le $((CI / STACK_P + 1)) ] ||
	r="$r $csamples samples in c, expected its $CI instructions / $STACK_P = $((CI / STACK_P)) +/-1;"
echo "callstack: $nebs samples of $TOTAL instructions, $csamples in c (raw: $raw_c, elsewhere: $raw_other); folded: $(tr '\n' '|' <$OUT/cs.folded)"
verdict arm64_callstack_user_frames "$r"
artifact $OUT/cs.folded folded_callchain.txt

# ---- kpmc report: c is all self, main, a and b all total ----
r=""
kpmc report $OUT/cs.txt >$OUT/cs.report 2>>$OUT/cs.report.err || r="kpmc report failed: $(cat $OUT/cs.report.err);"
[ -s $OUT/cs.report.err ] && r="$r kpmc report said: $(head -n 2 $OUT/cs.report.err | tr '\n' '|');"
n=$(samples_with $OUT/cs.folded c)
pct=$(awk -v a="$csamples" -v n="$nstack" 'BEGIN { printf "%.2f%%", 100 * a / n }')
[ "$(report_row $OUT/cs.report c '[.]')" = "$n $pct $csamples $pct" ] ||
	r="$r c: '$(report_row $OUT/cs.report c '[.]')', not '$n $pct $csamples $pct';"
[ "$n" = "$csamples" ] || r="$r c is in $n stacks but the leaf of $csamples;"
for f in b a main; do
	n=$(samples_with $OUT/cs.folded $f)
	self=$(awk -v f=$f '$1 ~ ("(^|;)" f "$") { s += $2 } END { print s + 0 }' $OUT/cs.folded)
	row=$(report_row $OUT/cs.report $f '[.]')
	read -r rtotal rpct rself rspct <<EOF
$row
EOF
	[ "$rtotal" = "$n" ] && [ "$rself" = "$self" ] && [ "$n" -ge "$csamples" ] ||
		r="$r $f: '$row', expected total $n (>= c's $csamples), self $self;"
done
grep -q "^# kpmc report of $OUT/cs.txt: $nstack samples with a call stack, 0 with no frame, 0 given up" $OUT/cs.report ||
	r="$r header: $(head -n 1 $OUT/cs.report);"
echo "report: $(grep -v '^#' $OUT/cs.report | head -n 8 | tr -s ' ' | tr '\n' '|')"
verdict arm64_callstack_report_self_total "$r"

# ---- kernel stacks: getppid system calls made by c's own svc ----
# Kernel frames come to sets that count kernel mode (os0=1). Each sample is
# sorted by its user frames (main and those above it):
# - the loop: main;a;b;c with c the leaf: c in user mode, or the kernel
#   entered from c (its getppid calls, an interrupt or exception taken there);
# - main's set-up: main without a, b, c (strtoul, printf, fflush and their
#   page faults and system calls), a fixed stretch before the loop;
# - a call edge: a, b or c in its own code around its call, or in its
#   prologue or epilogue, where the walk misses its caller (main;b, main;a;c);
# - outside main: libc's start-up before it, the exit after it (user frames
#   without main), and exit_group's samples, which have no user frames (the
#   mm is gone: do_exit in their kernel frames); any other sample without
#   user frames is a user walk that failed.
# Anything else with a, b or c in it is a broken stack, and so is a sample in
# getppid's implementation whose user frames are not main;a;b;c: only c
# makes that system call. The set-up and the edges lie in two stretches,
# before the loop and after it, whose cycles are at most those of
# "callchain sys 1" (counted below: 3.05e5 on 6.1, 1.4e4 of them in user
# mode; each system call of the loop adds 500): at periods of 80000 at
# least, floor(cycles / 80000) + 2 samples at most, plus one for the
# difference between two runs (6.1: 6 allowed; 1 to 4 measured a run, in
# 60 runs on 6.1 and 60 on 5.10, 20 of each with a CPU-bound task beside it).
# Outside main is not bounded by them: on the debug kernels the exit's cost
# (KASAN's quarantine, kmemleak's objects) depends on what the kernel did
# before, so one run's exit says little of another's (PREEMPT_RT debug:
# 9.4e6 cycles in "callchain sys 1", then 102 exit samples (1.0e7 cycles)
# in one run and 245 in another).
# Every kernel sample of the loop has, outermost, the kernel's entry from
# user mode: the synchronous exception (el0t_64_sync; 5.10: el0_sync) or,
# for an interrupt taken in user mode, the interrupt's (el0t_64_irq; 5.10:
# el0_irq, or el0_irq_naked, the label in it that its handler returns to),
# or the return to user mode of 5.10, which is no part of the entry's frames:
# el0_sync's and el0_irq's handlers return to ret_to_user, which calls
# do_notify_resume from work_pending for exit work (rescheduling, a signal,
# rseq's notify-resume); the 6.x kernels call it from C, under the entry
# (el0_svc -> exit_to_user_mode -> do_notify_resume) -- names as these
# kernels' traces show them, each used only if this kernel's kallsyms has
# it. The samples of the exit work (work_pending outermost, or
# do_notify_resume in the frames) are an overflow that came while the
# kernel had interrupts masked, taken when the exit work unmasked them
# (typically when the thread is switched back in after being preempted):
# none in 60 runs on 6.1 and 40 on 5.10; with a CPU-bound task beside it,
# one in 2 of 20 runs on 5.10 (of 128 and 135 kernel samples); an eighth
# of the kernel samples at most.
# A sample in the system call's dispatch (do_el0_svc) or in getppid's
# implementation (__arm64_sys_getppid, or __task_pid_nr_ns, which it
# tail-calls on most kernels) has the system call's path as its outer
# frames, in order: the exception entry, its handler, el0_svc, do_el0_svc,
# el0_svc_common.constprop.0, invoke_syscall (where the kernel did not
# inline the last two: 5.10, the debug kernels), then getppid's; of the
# first four only one may be missing: the caller of a function sampled
# before it stored its frame record, as in every frame-pointer walk. What
# comes after the path (an interrupt, lockdep's calls on debug kernels) and
# where most samples fall (where interrupts are unmasked) differ between
# kernels and are not held.
r=""
if grep -q ' el0t_64_sync$' /proc/kallsyms; then
	SYNC="el0t_64_sync el0t_64_sync_handler" IRQS="el0t_64_irq"
else
	SYNC="el0_sync el0_sync_handler" IRQS="el0_irq el0_irq_naked"
fi
IRQ0="" RET=""
for e0 in $IRQS; do grep -q " $e0\$" /proc/kallsyms && IRQ0="$IRQ0 $e0"; done
grep -q ' work_pending$' /proc/kallsyms && RET=work_pending
ENTRY="$SYNC el0_svc do_el0_svc el0_svc_common.constprop.0 invoke_syscall"
BODY="__arm64_sys_getppid __task_pid_nr_ns"
OUTC=$(kpmc -A -c pmc0,os0=1 -- "$BIN/callchain" sys 1 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
# How many system calls: 50,000 (250 samples on 6.1, a call there costs
# about 500 cycles) or, where a call costs more, as many as give about
# 1,000 samples (the PREEMPT_RT debug kernel, 13,000 to 22,000 cycles a
# call: 50,000 gave 7,000 samples, whose stacks took 27 guest seconds).
# 5,000 at least. What is held below is proportions, not numbers of samples.
SYSC=$(kpmc -A -c pmc0,os0=1 -- "$BIN/callchain" sys 2001 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }')
percall=$(( (${SYSC:-0} - ${OUTC:-0}) / 2000 ))
[ "$percall" -ge 1 ] || percall=1
NSYS=$((1000 * STACK_P / percall))
[ $NSYS -le 50000 ] || NSYS=50000
[ $NSYS -ge 5000 ] || NSYS=5000
echo "kernel stacks: $percall cycles a system call: $NSYS calls"
# Randomized periods (seeded): where samples fall in the system call loop
# must not hang on the period's phase against the loop's length, which
# every change of a path counted (kpmc's own interrupt, the kernel's) moves.
kpmc -k 65536 -o $OUT/ks.txt -c pmc0,os0=1,ebs0=$STACK_P,rnd=$((STACK_P / 5)),seed=19,fmt=callstack -- "$BIN/callchain" sys $NSYS >$OUT/ks.out 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/ks.out | tr '\n' '|');"
kpmc report --folded $OUT/ks.txt >$OUT/ks.folded 2>$OUT/ks.err || r="$r kpmc report failed: $(cat $OUT/ks.err);"
grep -q '^# stack of sample\|^# lost' $OUT/ks.txt && r="$r stacks given up or records lost: $(grep '^# ' $OUT/ks.txt | head -n 2 | tr '\n' '|');"
grep -q ' kpartial' $OUT/ks.txt && r="$r kernel stacks the unwinder did not cross: $(grep -c ' kpartial' $OUT/ks.txt);"
ks=$(awk -v entry="$ENTRY" -v body="$BODY" -v irq0="$IRQ0" -v ret="$RET" '
	BEGIN {
		ne = split(entry, e, " ")
		for (i = 1; i <= ne; i++) pos[e[i] "_[k]"] = i
		nb = split(body, bb, " ")
		for (i = 1; i <= nb; i++) isbody[bb[i] "_[k]"] = 1
		n = split(irq0, t, " ")
		for (i = 1; i <= n; i++) isirq[t[i] "_[k]"] = 1
		if (ret != "") isret[ret "_[k]"] = 1
	}
	{
		k = split($1, f, ";")
		# f[1..nu]: the user frames, outermost first; K[1..m]: the kernel frames
		for (nu = 0; nu < k && f[nu + 1] !~ /_\[k\]$/; nu++) ;
		m = 0
		for (j = nu + 1; j <= k; j++) K[++m] = f[j]
		hasmain = abc = 0
		for (j = 1; j <= nu; j++) {
			if (f[j] == "main") hasmain = 1
			if (f[j] == "a" || f[j] == "b" || f[j] == "c") abc = 1
		}
		loop = nu >= 4 && f[nu - 3] == "main" && f[nu - 2] == "a" && f[nu - 1] == "b" && f[nu] == "c"
		for (j = 1; j <= m; j++)
			if (K[j] == "__arm64_sys_getppid_[k]" || K[j] == "__task_pid_nr_ns_[k]" && j > 1 && pos[K[j - 1]] >= 5) break
		if (j <= m && !loop) { badsys += $2; if (!firstsys) firstsys = $1 }
		if (!loop) {
			if (!abc) {
				if (hasmain) setup += $2
				else if (nu) outside += $2
				else {
					# No user frames: only where the mm is gone, in the exit.
					for (j = 1; j <= m && K[j] != "do_exit_[k]"; j++) ;
					if (j <= m) outside += $2
					else { nouser += $2; if (!firstnouser) firstnouser = $1 }
				}
			}
			else if (f[nu] == "a" || f[nu] == "b" && (f[nu - 1] == "main" || f[nu - 1] == "a" && f[nu - 2] == "main") ||
				 f[nu] == "c" && f[nu - 1] == "a" && f[nu - 2] == "main") edge += $2
			else { baduser += $2; if (!firstuser) firstuser = $1 }
			next
		}
		if (!m) { user += $2; next }
		kern += $2
		if (K[1] == e[1] "_[k]") sync += $2
		else if (isirq[K[1]]) irq += $2
		else if (isret[K[1]]) retpath += $2
		else { badouter += $2; if (!firstouter) firstouter = $1 }
		for (j = 1; j <= m && K[j] != "do_notify_resume_[k]"; j++) ;
		if (j <= m || isret[K[1]]) exitwork += $2
		# the path part: the outer frames on the way from the entry into getppid
		for (j = 1; j <= m && (pos[K[j]] || isbody[K[j]]); j++) ;
		np = j - 1
		reach = 0; inb = 0
		for (x = 1; x <= np; x++) if (K[x] == "do_el0_svc_[k]" || isbody[K[x]]) reach = 1
		if (!reach) next
		dispatch += $2
		ok = pos[K[1]] == 1
		last = 0
		for (x = 1; x <= np && ok; x++) {
			if (isbody[K[x]]) { inb = 1; continue }
			if (inb || pos[K[x]] <= last) ok = 0
			last = pos[K[x]]
		}
		missing = 0
		for (x = 1; x <= 4; x++) {
			seen = 0
			for (y = 1; y <= np; y++) if (pos[K[y]] == x) seen = 1
			missing += !seen
		}
		if (ok && missing <= 1) { inbody += inb ? $2 : 0; skipped += missing ? $2 : 0 }
		else { badbody += $2; if (!firstbody) firstbody = $1 }
	}
	END {
		printf "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %s %s %s %s %s\n", user, kern, sync, irq, retpath,
			exitwork, badouter, dispatch, inbody, skipped, badbody, setup, edge, outside, baduser, badsys,
			nouser, firstouter ? firstouter : "-", firstbody ? firstbody : "-", firstuser ? firstuser : "-",
			firstsys ? firstsys : "-", firstnouser ? firstnouser : "-"
	}' $OUT/ks.folded)
read -r kuser kkern ksync kirq kret kexit kbadouter kdisp kbody kskip kbadbody ksetup kedge kout kbaduser kbadsys knouser kfirstouter kfirstbody kfirstuser kfirstsys kfirstnouser <<EOF
$ks
EOF
kall=$(trace_count $OUT/ks.txt stack)
[ "$kbaduser" = 0 ] || r="$r $kbaduser samples with a, b or c in their user frames but not main;a;b;c, e.g. $kfirstuser;"
[ "$kbadsys" = 0 ] || r="$r $kbadsys samples in getppid without main;a;b;c as their user frames, e.g. $kfirstsys;"
[ "$kbadouter" = 0 ] || r="$r $kbadouter kernel samples of c not entered from user mode, e.g. $kfirstouter;"
[ "$kbadbody" = 0 ] || r="$r $kbadbody samples in the system call without its path as their outer frames, e.g. $kfirstbody;"
[ "$knouser" = 0 ] || r="$r $knouser samples without user frames outside the exit, e.g. $kfirstnouser;"
nout=$((ksetup + kedge))
[ -n "$OUTC" ] && [ "$nout" -le $((OUTC / (STACK_P - STACK_P / 5) + 3)) ] ||
	r="$r $nout samples in main outside the loop ($ksetup in its set-up, $kedge at a call edge) for the ${OUTC:-?} cycles of a run without it, want $((${OUTC:-0} / (STACK_P - STACK_P / 5) + 3)) at most;"
[ $((kexit * 8)) -le "$kkern" ] || r="$r $kexit of $kkern kernel samples in the exit work, want an eighth at most;"
# A quarter of the kernel samples at least are in the dispatch or deeper.
# (Many samples land in user mode at c's instruction after its svc: an
# overflow while the kernel has interrupts masked is taken when they are
# unmasked, on some kernels only at the return to user mode.)
[ $((kdisp * 4)) -ge "$kkern" ] && [ "$kkern" -ge 1 ] ||
	r="$r only $kdisp of $kkern kernel samples in the system call's dispatch or deeper;"
# The user pc of the system calls' samples: one, c's instruction after its svc.
sr=$(sed -n "s/^ksym \(0x[0-9a-f]*\) \(0x[0-9a-f]*\) ${SYNC%% *}\$/\1 \2/p" $OUT/ks.txt)
upcs=$(awk -v range="$sr" -v b=$((B)) "$HEXFN"'
	BEGIN { split(range, sr, " ") }
	$4 == "stack" && / k=/ {
		kk = ""; u = ""
		for (i = 5; i <= NF; i++) { if ($i ~ /^k=/) kk = substr($i, 3); if ($i ~ /^u=/) u = substr($i, 3) }
		nk = split(kk, kf, ","); split(u, uf, ",")
		outer = kf[nk] ""
		if (length(outer) != length(sr[1] "") || outer < sr[1] "" || outer >= sr[2] "") next
		r = hex(uf[2])
		if (r > b && r <= b + 16) print uf[1]
	}' $OUT/ks.txt | sort -u | tr '\n' ' ')
[ -n "$sr" ] && [ "$(echo $upcs | wc -w)" = 1 ] || r="$r user pcs of the system calls' samples from c: '$upcs' (entry ${SYNC%% *} at '$sr'), want one;"
echo "kernel stacks: $kkern of $kall samples in the kernel under c ($ksync by ${SYNC%% *}, $kirq by${IRQ0:- no EL0 interrupt entry}, $kret by the return path${RET:+ ($RET)}; $kexit in the exit work), $kdisp in the dispatch or deeper ($kbody in getppid, $kskip with a frame hidden by a prologue), $kuser in c in user mode, user pc $upcs; outside the loop ($OUTC cycles): $ksetup in main's set-up, $kedge at a call edge, $kout outside main"
echo "kernel stacks, the most frequent: $(sed 's/^.*;c;//' $OUT/ks.folded | sort -t' ' -k2 -n -r | head -n 4 | tr '\n' '|')"
verdict arm64_callstack_kernel_syscall_path "$r"
artifact $OUT/ks.folded folded_callchain_sys.txt
