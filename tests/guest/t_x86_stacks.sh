# x86_64: call stacks (fmt=callstack) of callchain, main -> a -> b -> c,
# built with frame pointers (leaf frames too: -mno-omit-leaf-frame-pointer,
# which Debian's x86-64 GCC would otherwise omit, dropping b), sampled on
# the perf backend's cpu-clock (no PMU under TCG: a 1 ms tick), recorded
# into a text trace and symbolized by kpmc report. x86 guests run without
# icount, so the number of samples follows the host's speed: bounded by
# shares, not counts. The same code as arm64's (kernel/fmt_callstack.c) walks
# x86's user frames (rbp chain) and the kernel's ORC unwinder the kernel
# frames, from the interrupted registers.
load
# xs_share FOLDED AWK-CONDITION: the samples of the folded stacks ($1 = stack, $2 = samples) meeting it.
xs_share() {
	awk "$2"' { n += $2 } END { print n + 0 }' "$1"
}

# ---- user stacks: every sample with c in it is main, a, b, c ----
r=""
kpmc -o $OUT/xs.txt -c pmc0=0x100000000,os0=1,tbs=1,fmt=callstack -- "$BIN/callchain" spin 100000000 >$OUT/xs.out 2>&1 ||
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
# Every sample taken in the kernel under c has c, b, a, main as its user
# frames and, outermost, the kernel's entry from user mode: the system
# call's (entry_SYSCALL_64_after_hwframe) or an interrupt's or exception's
# (asm_*). A sample in the system call's dispatch (do_syscall_64) or deeper
# has the entry then do_syscall_64 as its outer frames (or, on 5.10, whose
# do_syscall_64 tail-calls it, syscall_exit_to_user_mode); a quarter at
# least of the kernel samples are there.
r=""
kpmc -k 65536 -o $OUT/xk.txt -c pmc0=0x100000000,os0=1,tbs=1,fmt=callstack -- "$BIN/callchain" sys 300000 >$OUT/xk.out 2>&1 ||
	r="kpmc failed: $(tail -n 3 $OUT/xk.out | tr '\n' '|');"
kpmc report --folded $OUT/xk.txt >$OUT/xk.folded 2>$OUT/xk.err || r="$r kpmc report failed: $(cat $OUT/xk.err);"
grep -q '^# stack of sample\|^# lost' $OUT/xk.txt && r="$r stacks given up or records lost: $(grep '^# ' $OUT/xk.txt | head -n 2 | tr '\n' '|');"
grep -q ' kpartial' $OUT/xk.txt && r="$r kernel stacks the unwinder did not cross: $(grep -c ' kpartial' $OUT/xk.txt);"
ks=$(awk '
	{
		k = split($1, f, ";")
		for (i = 1; i <= k && f[i] != "main"; i++) ;
		if (i > k) next
		if (i + 3 > k || f[i + 1] != "a" || f[i + 2] != "b" || f[i + 3] != "c") { baduser += $2; next }
		if (i + 4 > k) { user += $2; next }
		kern += $2
		outer = f[i + 4]
		if (outer != "entry_SYSCALL_64_after_hwframe_[k]" && outer !~ /^asm_[a-z_]*_\[k\]$/) { badouter += $2; next }
		if (outer == "entry_SYSCALL_64_after_hwframe_[k]") {
			# 5.10: do_syscall_64 ends by a jump to syscall_exit_to_user_mode (no frame of its own then).
			if (f[i + 5] == "syscall_exit_to_user_mode_[k]") { tailexit += $2; next }
			if (f[i + 5] != "do_syscall_64_[k]") { badpath += $2; next }
			dispatch += $2
			for (j = i + 6; j <= k; j++) if (f[j] ~ /getppid/) { inbody += $2; break }
		}
	}
	END { print user + 0, kern + 0, baduser + 0, badouter + 0, badpath + 0, dispatch + 0, inbody + 0 }' $OUT/xk.folded)
read -r kuser kkern kbaduser kbadouter kbadpath kdisp kbody <<EOF
$ks
EOF
[ "$kbaduser" = 0 ] || r="$r $kbaduser samples under main without a, b, c;"
[ "$kbadouter" = 0 ] || r="$r $kbadouter kernel samples not entered from user mode;"
[ "$kbadpath" = 0 ] || r="$r $kbadpath system-call samples without do_syscall_64 next to the entry;"
[ "$kkern" -ge 10 ] && [ $((kdisp * 4)) -ge "$kkern" ] && [ "$kbody" -ge 1 ] ||
	r="$r only $kdisp of $kkern kernel samples in the dispatch or deeper, $kbody in getppid;"
echo "x86 kernel stacks: $kkern samples in the kernel under c ($kdisp in do_syscall_64 or deeper, $kbody in getppid), $kuser in c in user mode; the most frequent: $(sed 's/^.*;c;//' $OUT/xk.folded | sort -t' ' -k2 -n -r | head -n 3 | tr '\n' '|')"
verdict x86_callstack_kernel_syscall_path "$r"
artifact $OUT/xk.folded folded_x86_callchain_sys.txt
rmmod kpmc
