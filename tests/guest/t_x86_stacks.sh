# x86_64: call stacks (fmt=callstack) of callchain, main -> a -> b -> c,
# built with frame pointers (leaf frames too: -mno-omit-leaf-frame-pointer,
# which Debian's x86-64 GCC would otherwise omit, dropping b), sampled on
# the perf backend's cpu-clock (no PMU under TCG: a 1 ms tick), recorded
# into a text trace and symbolized by kpmc report. x86 guests run without
# icount, so the number of samples follows the host's speed: bounded by
# shares, not counts. The same code as arm64's (formats/callstack.c) walks
# x86's user frames (rbp chain) and the kernel's ORC unwinder the kernel
# frames, from the interrupted registers.
load
# xs_share FOLDED AWK-CONDITION: the samples of the folded stacks ($1 = stack, $2 = samples) meeting it.
xs_share() {
	awk "$2"' { n += $2 } END { print n + 0 }' "$1"
}

# ---- user stacks: every sample with c in it is main, a, b, c ----
# A ring that holds the whole run (-k, as the kernel stacks' below): without
# icount the tick samples at the host's pace, and on the debug kernel with
# the host loaded the reader fell behind (869 of 2,919 records lost with
# two guests on two cores); the report must still say 0 lost.
r=""
kpmc -k 65536 -o $OUT/xs.txt -c pmc0=0x100000000,os0=1,tbs=1,fmt=callstack -- "$BIN/callchain" spin 100000000 >$OUT/xs.out 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/xs.out | tr '\n' '|');"
kpmc report --folded $OUT/xs.txt >$OUT/xs.folded 2>$OUT/xs.err || r="$r kpmc report --folded failed: $(cat $OUT/xs.err);"
kpmc report $OUT/xs.txt >$OUT/xs.report 2>>$OUT/xs.err || r="$r kpmc report failed: $(cat $OUT/xs.err);"
all=$(trace_count $OUT/xs.txt stack)
inc=$(xs_share $OUT/xs.folded '$1 ~ /(^|;)c(;|$)/')
good=$(xs_share $OUT/xs.folded '$1 ~ /(^|;)main;a;b;c(;|$)/')
leaf=$(xs_share $OUT/xs.folded '$1 ~ /(^|;)main;a;b;c$/')
grep -q "^# kpmc report of $OUT/xs.txt: $all samples with a call stack, 0 with no frame, 0 given up (parts missing or malformed), 0 records lost" $OUT/xs.report ||
	r="$r header: $(head -n 1 $OUT/xs.report);"
[ "$inc" = "$good" ] || r="$r $((inc - good)) of $inc samples in c not under main;a;b: $(grep -v 'main;a;b;c' $OUT/xs.folded | grep '[;]c[; ]' | head -n 2 | tr '\n' '|');"
# The spin is all but the program's start-up and exit: 85% of the ticks at
# least, 75% of them in c in user mode (the rest the tick's own interrupt
# work: 11% on the x86_64 debug kernel, 4% on Debian's).
[ "$all" -ge 20 ] && [ $((inc * 100)) -ge $((all * 85)) ] && [ $((leaf * 4)) -ge $((inc * 3)) ] ||
	r="$r $inc of $all samples in c, $leaf of them in user mode (want >= 85%, and 75% of those);"
row=$(awk '$5 == "[.]" && $6 == "c" { print $1, $3 }' $OUT/xs.report)
[ "$row" = "$inc $leaf" ] || r="$r report row of c '$row', want total $inc self $leaf;"
echo "x86 callstack: $all samples, $inc in c ($leaf in user mode), all under main;a;b: $([ "$inc" = "$good" ] && echo yes || echo no)"
verdict x86_callstack_user_frames "$r"
artifact $OUT/xs.folded folded_x86_callchain.txt

# ---- kernel stacks: getppid system calls made by c's own syscall ----
# Each sample is sorted by its user frames (main and those above it), as on
# arm64 (t_arm64_callstacks.sh): the loop (main;a;b;c with c the leaf: c in
# user mode, or the kernel entered from c); main's set-up (main without a,
# b, c: strtoul, printf, fflush, their page faults and system calls); a call
# edge (a, b or c in its own code around its call, or in its prologue or
# epilogue, where the walk misses its caller: main;b, main;a;c); outside
# main (libc's start-up, the exit; glibc keeps no frame pointer, so most
# walks from inside its functions miss main too). Anything else with a, b
# or c in it is a broken stack, and so is a sample in getppid whose user
# frames are not main;a;b;c: only c makes that system call.
# The set-up and the edges are a fixed stretch beside the loop's 300,000
# system calls: none in 28 runs on Debian's kernel (8 alone, 20 with a
# CPU-bound task beside it; 139 to 397 samples in the loop) nor in 3 on the
# debug kernel (2407 to 2649 in the loop), one in an earlier run there
# (which failed the bound of none before); a twentieth of the loop's samples
# at most. Outside main is not bounded: the exec and the exit take the
# debug kernel longer than Debian's (2 to 21 samples a run on Debian's
# kernel, 23 or 24 on the debug kernel).
# Every kernel sample of the loop has, outermost, the kernel's entry from
# user mode: the system call's (entry_SYSCALL_64_after_hwframe) or an
# interrupt's or exception's (asm_*). A system call's sample has the entry
# then do_syscall_64 as its outer frames (or, on 5.10, whose do_syscall_64
# tail-calls it, syscall_exit_to_user_mode), a quarter at least of the
# kernel samples, and some in getppid. The return to user mode
# (syscall_exit_to_user_mode, irqentry_exit_to_user_mode and, where not
# inlined, exit_to_user_mode_prepare or _loop: the syscall's exit tracing
# and the exit work -- rescheduling, a signal, task work) is under the
# entry like the rest: 7 to 26 of 114 to 193 kernel samples a run on
# Debian's kernel (8 runs, at most 14%), 8 to 44 of 66 to 221 with a
# CPU-bound task beside it (20 runs, at most 20%), 76 to 112 of 2022 to
# 2263 on the debug kernel (3 runs, at most 5%); a third at most.
# On the debug kernel (KASAN) 300,000 calls took 56 s of guest time: it makes
# a third as many (about 700 kernel samples; the bounds are shares).
NSYS=300000
debug_kernel && NSYS=100000
r=""
kpmc -k 65536 -o $OUT/xk.txt -c pmc0=0x100000000,os0=1,tbs=1,fmt=callstack -- "$BIN/callchain" sys $NSYS >$OUT/xk.out 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/xk.out | tr '\n' '|');"
kpmc report --folded $OUT/xk.txt >$OUT/xk.folded 2>$OUT/xk.err || r="$r kpmc report failed: $(cat $OUT/xk.err);"
grep -q '^# stack of sample\|^# lost' $OUT/xk.txt && r="$r stacks given up or records lost: $(grep '^# ' $OUT/xk.txt | head -n 2 | tr '\n' '|');"
grep -q ' kpartial' $OUT/xk.txt && r="$r kernel stacks the unwinder did not cross: $(grep -c ' kpartial' $OUT/xk.txt);"
ks=$(awk '
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
		for (j = 1; j <= m && K[j] !~ /getppid/; j++) ;
		getppid = j <= m
		if (getppid && !loop) { badsys += $2; if (!firstsys) firstsys = $1 }
		if (!loop) {
			if (!abc) { if (hasmain) setup += $2; else outside += $2 }
			else if (f[nu] == "a" || f[nu] == "b" && (f[nu - 1] == "main" || f[nu - 1] == "a" && f[nu - 2] == "main") ||
				 f[nu] == "c" && f[nu - 1] == "a" && f[nu - 2] == "main") edge += $2
			else { baduser += $2; if (!firstuser) firstuser = $1 }
			next
		}
		loops += $2
		if (!m) { user += $2; next }
		kern += $2
		for (j = 1; j <= m && K[j] !~ /^(syscall_|irqentry_)?exit_to_user_mode(_prepare|_loop)?_\[k\]$/; j++) ;
		if (j <= m) exitwork += $2
		outer = K[1]
		if (outer != "entry_SYSCALL_64_after_hwframe_[k]" && outer !~ /^asm_[a-z_]*_\[k\]$/) { badouter += $2; next }
		if (outer == "entry_SYSCALL_64_after_hwframe_[k]") {
			# 5.10: do_syscall_64 ends by a jump to syscall_exit_to_user_mode (no frame of its own then).
			if (K[2] == "syscall_exit_to_user_mode_[k]") next
			# 5.10 too: the entry work (noinstr, before do_syscall_64 has a frame the
			# walk sees) right under the entry; still the system call path.
			if (K[2] ~ /^syscall_enter_from_user_mode(_prepare)?_\[k\]$/) next
			if (K[2] != "do_syscall_64_[k]") { badpath += $2; next }
			dispatch += $2
			if (getppid) inbody += $2
		}
	}
	END {
		printf "%d %d %d %d %d %d %d %d %d %d %d %d %d %s %s\n", loops, user, kern, exitwork, badouter, badpath,
			dispatch, inbody, setup, edge, outside, baduser, badsys, firstuser ? firstuser : "-",
			firstsys ? firstsys : "-"
	}' $OUT/xk.folded)
read -r kloop kuser kkern kexit kbadouter kbadpath kdisp kbody ksetup kedge kout kbaduser kbadsys kfirstuser kfirstsys <<EOF
$ks
EOF
[ "$kbaduser" = 0 ] || r="$r $kbaduser samples with a, b or c in their user frames but not main;a;b;c, e.g. $kfirstuser;"
[ "$kbadsys" = 0 ] || r="$r $kbadsys samples in getppid without main;a;b;c as their user frames, e.g. $kfirstsys;"
[ "$kbadouter" = 0 ] || r="$r $kbadouter kernel samples not entered from user mode;"
[ "$kbadpath" = 0 ] || r="$r $kbadpath system-call samples without do_syscall_64 next to the entry;"
[ $(((ksetup + kedge) * 20)) -le "$kloop" ] ||
	r="$r $ksetup samples in main's set-up and $kedge at a call edge for $kloop in the loop, want a twentieth at most;"
[ $((kexit * 3)) -le "$kkern" ] || r="$r $kexit of $kkern kernel samples on the return to user mode, want a third at most;"
[ "$kkern" -ge 10 ] && [ $((kdisp * 4)) -ge "$kkern" ] && [ "$kbody" -ge 1 ] ||
	r="$r only $kdisp of $kkern kernel samples in the dispatch or deeper, $kbody in getppid;"
echo "x86 kernel stacks: $kloop samples in the loop, $kkern of them in the kernel ($kdisp in do_syscall_64 or deeper, $kbody in getppid; $kexit on the return to user mode), $kuser in c in user mode; outside the loop: $ksetup in main's set-up, $kedge at a call edge, $kout outside main; the most frequent: $(sed 's/^.*;c;//' $OUT/xk.folded | sort -t' ' -k2 -n -r | head -n 3 | tr '\n' '|')"
verdict x86_callstack_kernel_syscall_path "$r"
artifact $OUT/xk.folded folded_x86_callchain_sys.txt
rmmod kpmc
