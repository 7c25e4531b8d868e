# x86_64 guest (stock Debian kernel under TCG: no PMU). No direct backend
# fits, so kpmc falls back to the kernel's perf events: it says why the
# direct backends were refused, refuses hardware events clearly, and counts
# software events per thread.
load
r=""
grep -q '^backend: perf' /proc/kpmc/info || r="backend is not the perf fallback;"
# The guest CPU is an Intel model without a vPMU.
grep -q '^direct_backends_refused: intel: no architectural PMU: CPUID.0AH reports version 0 (running under a hypervisor without vPMU?); amd: not an AMD CPU' /proc/kpmc/info ||
	r="$r info does not say why no direct backend: $(grep refused /proc/kpmc/info);"
dmesg | grep -q 'kpmc: backend perf: .*direct backends refused' || r="$r no dmesg line at load;"
verdict x86_info_perf_fallback "$r"
[ -n "$r" ] && cat /proc/kpmc/info

# Hardware events: perf has no PMU driver here, and kpmc says so.
r=""
kpmc -c "pmc0=0x0" -- /bin/true >$OUT/x86.txt 2>&1 && r="kpmc counted a hardware event without a PMU;"
grep -q "perf cannot count hardware event 0x0 here" $OUT/x86.txt || r="$r kpmc's message lacks the reason: $(cat $OUT/x86.txt);"
kpmc -c "pmc0=0x100000003,ebs0=100000,os0=1" -- /bin/true >$OUT/x86ebs.txt 2>&1 && r="$r ebs accepted by the perf backend;"
grep -q "samples hardware events only" $OUT/x86ebs.txt || r="$r no reason for ebs: $(cat $OUT/x86ebs.txt);"
# Memory sampling needs a source (decoded A64, PEBS, IBS): the perf backend
# asked perf for precise cycles at load, and perf has no PMU driver here.
kpmc -c "pmc0=0x100000003,ebs0=100000,os0=1,mem=1" -- /bin/true >$OUT/x86mem.txt 2>&1 && r="$r mem=1 accepted by the perf backend;"
grep -q "mem=1: this kernel's perf has no precise sampling (PEBS or IBS) of cycles here (error -" $OUT/x86mem.txt || r="$r no reason for mem=1: $(cat $OUT/x86mem.txt);"
grep -q '^memory_sampling: none' /proc/kpmc/info || r="$r info: $(grep memory_sampling /proc/kpmc/info);"
read -r le </proc/kpmc/last_error
verdict x86_clear_errors "$r"

# Software events per thread: two threads hand a byte back and forth 1,000
# times; each is switched in at least once per round (+ its start), and a
# few more times when the timer preempts it: x86 guests run without icount,
# so that depends on the host's load (up to 5% allowed). Context switches
# are counted in the kernel, hence os0=1.
r=""
kpmc -A -c "pmc0=0x100000003,os0=1" -- "$BIN/yield" 1000 >$OUT/yield.txt 2>&1 || r="kpmc failed: $(tail -n 3 $OUT/yield.txt);"
n=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $4 >= 1000 && $4 <= 1050 { n++ } END { print n + 0 }' $OUT/yield.txt)
echo "yield: $(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { printf "%s ", $4 }' $OUT/yield.txt)"
[ "$n" -eq 2 ] || r="$r $n threads with 1000..1050 context switches, expected 2: $(cat $OUT/yield.txt);"
verdict x86_perf_backend_software_events_per_thread "$r"

# A user gets through the perf backend what perf gives it, same boot (its
# events are kpmc's, created as the kernel's; kpmc's privilege rules decide):
# software page faults, counted in user mode (a fault's registers are the
# user's), of the user's own program, against perf's count of the same.
# One address-space layout (ASLR off): where the stack and the mappings
# fall decides how many pages a run touches (24 to 26 with it on).
paranoid_matrix pmc1=0x100000002 pmc1=0x100000002,os1=1 1:2
r=$mx_r
aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space
"$BIN/runas" 1000 kpmc -A -c pmc1=0x100000002 -- "$BIN/loop" 1000 >$OUT/userpf.txt 2>&1 ||
	r="$r uid 1000 refused: $(tail -n 2 $OUT/userpf.txt);"
u=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $4; exit }' $OUT/userpf.txt)
"$BIN/runas" 1000 "$BIN/perfcount" -e 1:2 "$BIN/loop" 1000 >$OUT/userpfcount.txt 2>&1
pc=$(sed -n 's/^perfcount count=\([0-9]*\) .*/\1/p' $OUT/userpfcount.txt)
echo "$aslr" >/proc/sys/kernel/randomize_va_space
echo "uid 1000 page faults via the perf backend: kpmc $u, perf $pc"
[ -n "$u" ] && [ "$u" -gt 0 ] && [ "$u" = "$pc" ] || r="$r uid 1000: kpmc '$u' page faults, perf '$pc';"
verdict x86_perf_backend_privilege_as_perf "$r"

# System-wide through the perf backend: the CPU's context switches while two
# threads hand a byte back and forth 500 times (at least 2 per round).
r=""
kpmc -S -A -c "pmc0=0x100000003,os0=1" -- "$BIN/yield" 500 >$OUT/sysyield.txt 2>&1 || r="kpmc -S failed: $(tail -n 3 $OUT/sysyield.txt);"
n=$(awk '$1 == "all" { print $4 }' $OUT/sysyield.txt)
echo "system-wide via perf: ${n:-none} context switches"
[ -n "$n" ] && [ "$n" -ge 1000 ] && [ "$n" -le 1300 ] || r="$r '$n' context switches on the CPU, expected 1000..1300;"
verdict x86_perf_backend_system_wide "$r"

# Unload/reload still clean after the failed attempts; backend=perf by name too.
r=""
rmmod kpmc || r="rmmod failed;"
insmod "$KO" backend=perf || r="$r insmod backend=perf failed;"
grep -q '^backend: perf' /proc/kpmc/info || r="$r backend=perf not chosen;"
rmmod kpmc || r="$r second rmmod failed;"
rmmod kpmc 2>/dev/null
# Forcing the Intel backend: it refuses, says why, and kpmc has no backend.
insmod "$KO" backend=intel || r="$r insmod backend=intel failed;"
grep -q "^pmu: no supported PMU found: intel: no architectural PMU: CPUID.0AH reports version 0" /proc/kpmc/info ||
	r="$r backend=intel: $(grep pmu: /proc/kpmc/info);"
kpmc -c pmc0 -- /bin/true >$OUT/x86intel.txt 2>&1 && r="$r kpmc ran with no backend;"
grep -q "CPUID.0AH reports version 0" $OUT/x86intel.txt || r="$r kpmc's message: $(cat $OUT/x86intel.txt);"
rmmod kpmc
insmod "$KO" backend=nosuch || r="$r insmod backend=nosuch failed;"
grep -q "no backend named 'nosuch'" /proc/kpmc/info || r="$r backend=nosuch: $(grep pmu: /proc/kpmc/info);"
verdict x86_reload_after_errors "$r"
rmmod kpmc
