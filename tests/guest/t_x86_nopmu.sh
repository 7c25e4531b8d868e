# x86_64 guest (stock Debian kernel under TCG: no PMU): kpmc loads, says
# plainly that no supported PMU was found, and every request fails clearly.
load
r=""
grep -q '^backend: none' /proc/kpmc/info || r="backend is not 'none';"
grep -q '^pmu: no supported PMU found: ' /proc/kpmc/info || r="$r info does not say no PMU was found;"
dmesg | grep -q 'kpmc: no supported PMU found' || r="$r no dmesg line at load;"
verdict x86_info_no_pmu "$r"
[ -n "$r" ] && cat /proc/kpmc/info

r=""
kpmc -c "pmc0" -- /bin/true >$OUT/x86.txt 2>&1 && r="kpmc succeeded without a PMU;"
grep -q "no supported PMU found" $OUT/x86.txt || r="$r kpmc's message lacks the reason: $(cat $OUT/x86.txt);"
cat /proc/kpmc/monitor >/dev/null 2>&1 && r="$r monitor opened without a PMU;"
printf 'pmc0' 2>/dev/null >/proc/kpmc/config && r="$r config accepted without a PMU;"
# last_error is per thread: read it from this shell.
read -r le </proc/kpmc/last_error
case $le in *"no supported PMU found"*) ;; *) r="$r last_error '$le' lacks the reason;" ;; esac
verdict x86_clear_errors "$r"

# Unload/reload still clean after the failed attempts.
r=""
rmmod kpmc || r="rmmod failed;"
insmod "$KO" || r="$r insmod failed;"
verdict x86_reload_after_errors "$r"
