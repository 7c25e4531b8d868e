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
# Kernel frames come to sets that count kernel mode (os0=1). Every sample
# taken in the kernel while c runs has c, b, a, main as its user frames and,
# outermost, the kernel's entry from user mode: the synchronous exception
# (el0t_64_sync; 5.10: el0_sync) or, for an interrupt taken in user mode,
# the interrupt's (el0t_64_irq; 5.10: el0_irq) -- names as these kernels'
# traces show them, each used only if this kernel's kallsyms has it. A
# sample in the system call's dispatch (do_el0_svc) or in getppid's
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
	SYNC="el0t_64_sync el0t_64_sync_handler" IRQ0=el0t_64_irq
else
	SYNC="el0_sync el0_sync_handler" IRQ0=el0_irq
fi
grep -q " $IRQ0\$" /proc/kallsyms || IRQ0=""
ENTRY="$SYNC el0_svc do_el0_svc el0_svc_common.constprop.0 invoke_syscall"
BODY="__arm64_sys_getppid __task_pid_nr_ns"
# Randomized periods (seeded): where samples fall in the system call loop
# must not hang on the period's phase against the loop's length, which
# every change of a path counted (kpmc's own interrupt, the kernel's) moves.
kpmc -k 65536 -o $OUT/ks.txt -c pmc0,os0=1,ebs0=$STACK_P,rnd=$((STACK_P / 5)),seed=19,fmt=callstack -- "$BIN/callchain" sys 50000 >$OUT/ks.out 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/ks.out | tr '\n' '|');"
kpmc report --folded $OUT/ks.txt >$OUT/ks.folded 2>$OUT/ks.err || r="$r kpmc report failed: $(cat $OUT/ks.err);"
grep -q '^# stack of sample\|^# lost' $OUT/ks.txt && r="$r stacks given up or records lost: $(grep '^# ' $OUT/ks.txt | head -n 2 | tr '\n' '|');"
grep -q ' kpartial' $OUT/ks.txt && r="$r kernel stacks the unwinder did not cross: $(grep -c ' kpartial' $OUT/ks.txt);"
ks=$(awk -v entry="$ENTRY" -v body="$BODY" -v irq0="$IRQ0" '
	BEGIN {
		ne = split(entry, e, " ")
		for (i = 1; i <= ne; i++) pos[e[i] "_[k]"] = i
		nb = split(body, bb, " ")
		for (i = 1; i <= nb; i++) isbody[bb[i] "_[k]"] = 1
	}
	{
		k = split($1, f, ";")
		for (i = 1; i <= k && f[i] != "main"; i++) ;
		if (i + 3 > k || f[i + 1] != "a" || f[i + 2] != "b" || f[i + 3] != "c") next
		if (i + 4 > k) { user += $2; next }
		m = 0
		for (j = i + 4; j <= k; j++) K[++m] = f[j]
		kern += $2
		if (K[1] == e[1] "_[k]") sync += $2
		else if (irq0 != "" && K[1] == irq0 "_[k]") irq += $2
		else { badouter += $2; if (!firstouter) firstouter = $1 }
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
		printf "%d %d %d %d %d %d %d %d %d %s %s\n", user, kern, sync, irq, badouter, dispatch, inbody,
			skipped, badbody, firstouter ? firstouter : "-", firstbody ? firstbody : "-"
	}' $OUT/ks.folded)
read -r kuser kkern ksync kirq kbadouter kdisp kbody kskip kbadbody kfirstouter kfirstbody <<EOF
$ks
EOF
kall=$(trace_count $OUT/ks.txt stack)
[ "$kbadouter" = 0 ] || r="$r $kbadouter kernel samples of c not entered from user mode, e.g. $kfirstouter;"
[ "$kbadbody" = 0 ] || r="$r $kbadbody samples in the system call without its path as their outer frames, e.g. $kfirstbody;"
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
echo "kernel stacks: $kkern of $kall samples in the kernel under c ($ksync by ${SYNC%% *}, $kirq by ${IRQ0:-no EL0 interrupt entry}), $kdisp in the dispatch or deeper ($kbody in getppid, $kskip with a frame hidden by a prologue), $kuser in c in user mode, user pc $upcs"
echo "kernel stacks, the most frequent: $(sed 's/^.*;c;//' $OUT/ks.folded | sort -t' ' -k2 -n -r | head -n 4 | tr '\n' '|')"
verdict arm64_callstack_kernel_syscall_path "$r"
artifact $OUT/ks.folded folded_callchain_sys.txt
