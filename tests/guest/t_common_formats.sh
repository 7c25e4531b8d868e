# Sampling formats (perfmon2's plug-ins): the built-in ones listed, a format
# in a module of its own (tests/kmod/kpmc_fmt_example.c) loaded, used,
# refused unloading while a configuration holds it, unloaded; its parts
# reassemble; its "buffer full" drops samples counted lost; bad options are
# refused with the token named. tests/progs/fmtcheck.c reads the records.
FMT_KO=/kpmc_fmt_example.ko
EX_UUID=e47a193c-550f-4d2b-9e61-c8027db346f1
fmt_users() { # NAME -> its users count in /proc/kpmc/formats
	sed -n "s/^$1 [0-9a-f-]* users \([0-9]*\) .*/\1/p" /proc/kpmc/formats
}
# A configuration, and the format reference it holds, is released an RCU
# grace period and a work item after its last user: a program that just
# ended may still count among the users for a moment.
fmt_users_released() { # NAME -> waits (5 s at most) for its users to reach 0
	_i=0
	while [ "$(fmt_users "$1")" != 0 ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
}
fmtcheck_field() { # FILE LINE-PREFIX FIELD
	sed -n "s/^$2 .*[ ]$3=\([0-9.]*\).*/\1/p; s/^$2 $3=\([0-9.]*\).*/\1/p" "$1" | head -n 1
}

load
r=""
grep -q "^callstack 5b2e8c41-7a0d-4f93-b16e-2cd49017a358 users 0 module kpmc$" /proc/kpmc/formats ||
	r="no built-in callstack: $(cat /proc/kpmc/formats | tr '\n' '|');"
grep -q "^mem 9c410b7e-23d6-4a15-8f52-e13a6dc09427 users 0 module kpmc$" /proc/kpmc/formats ||
	r="$r no built-in mem;"
insmod $FMT_KO || r="$r insmod $FMT_KO failed;"
grep -q "^example $EX_UUID users 0 module kpmc_fmt_example$" /proc/kpmc/formats ||
	r="$r example not listed: $(cat /proc/kpmc/formats | tr '\n' '|');"
dmesg | grep -q 'kpmc: format example registered by kpmc_fmt_example' || r="$r no registration line in dmesg;"
verdict formats_listed_and_registered "$r"

# Use: every sample followed by its parts, which reassemble whole. On arm64
# exactly: 1e6 two-instruction iterations sampled every 100,000 user cycles
# (the cycle counter: an event counter's overflow interrupt comes late in
# QEMU, t_arm64_sampling.sh) are 20 samples, each 32 + 400 bytes (3 parts), every pc in the
# program's text and user mode. x86_64 (no PMU under TCG): a 1 ms tick on
# the perf backend's cpu-clock, as many samples as ticks.
r=""
if [ "$(uname -m)" = aarch64 ]; then
	cfg="pmc0,ebs0=100000,fmt=example,fmt.pad=400"; iters=1000000
else
	cfg="pmc0=0x100000000,os0=1,tbs=1,fmt=example,fmt.pad=400"; iters=30000000
fi
"$BIN/fmtcheck" "$cfg" $iters >$OUT/fmt_ex.txt 2>&1 || r="fmtcheck failed: $(cat $OUT/fmt_ex.txt);"
cat $OUT/fmt_ex.txt
s=$(fmtcheck_field $OUT/fmt_ex.txt fmtcheck samples)
p=$(fmtcheck_field $OUT/fmt_ex.txt fmtcheck parts)
y=$(fmtcheck_field $OUT/fmt_ex.txt fmtcheck payloads)
b=$(fmtcheck_field $OUT/fmt_ex.txt fmtcheck bad)
l=$(fmtcheck_field $OUT/fmt_ex.txt fmtcheck lost)
ok=$(fmtcheck_field $OUT/fmt_ex.txt example pad_ok)
txt=$(fmtcheck_field $OUT/fmt_ex.txt example ip_in_text)
usr=$(fmtcheck_field $OUT/fmt_ex.txt example user)
ord=$(fmtcheck_field $OUT/fmt_ex.txt example in_order)
if [ "$(uname -m)" = aarch64 ]; then
	[ "$s" = 20 ] && [ "$p" = 60 ] && [ "$y" = 20 ] || r="$r samples/parts/payloads $s/$p/$y, expected 20/60/20;"
	grep -q '^example seq=1\.\.20 in_order=1 pad_ok=20 ip_in_text=20 user=20 periods=20$' $OUT/fmt_ex.txt ||
		r="$r example payloads: $(grep '^example' $OUT/fmt_ex.txt);"
else
	[ -n "$s" ] && [ "$s" -ge 5 ] && [ "$p" = $((3 * s)) ] && [ "$y" = "$s" ] ||
		r="$r samples/parts/payloads $s/$p/$y: want 3 parts and a payload per sample, 5 samples or more;"
	[ "$ord" = 1 ] && [ "$ok" = "$s" ] || r="$r example payloads out of order or padding damaged;"
	# Every user-mode pc is in the program's text. A tick may land in the
	# kernel: the enable/disable system calls, and on the debug kernels
	# (KASAN, lockdep) the previous tick's own interrupt and softirq work,
	# 11 of 124 once: at least 3 in 4 in user mode.
	[ -n "$txt" ] && [ "$txt" = "$usr" ] && [ $((4 * usr)) -ge $((3 * s)) ] ||
		r="$r only $txt of $s pcs in the program's text ($usr user mode);"
fi
[ "$b" = 0 ] && [ "$l" = 0 ] || r="$r bad=$b lost=$l;"
fmt_users_released example
[ "$(fmt_users example)" = 0 ] || r="$r users $(fmt_users example) after the run;"
verdict formats_example_parts_reassemble "$r"

# The format's buffer full: fmt.max=5 keeps 5 samples; the others are
# dropped whole and told as lost (arm64: 5 + 15 = the 20 samples exactly).
r=""
"$BIN/fmtcheck" "$cfg,fmt.max=5" $iters >$OUT/fmt_max.txt 2>&1 || r="fmtcheck failed: $(cat $OUT/fmt_max.txt);"
cat $OUT/fmt_max.txt
s=$(fmtcheck_field $OUT/fmt_max.txt fmtcheck samples)
l=$(fmtcheck_field $OUT/fmt_max.txt fmtcheck lost)
grep -q '^example seq=1\.\.5 in_order=1 pad_ok=5 ' $OUT/fmt_max.txt || r="$r payloads: $(grep '^example' $OUT/fmt_max.txt);"
[ "$s" = 5 ] || r="$r $s samples delivered, expected 5;"
if [ "$(uname -m)" = aarch64 ]; then
	[ "$l" = 15 ] || r="$r lost $l, expected 15;"
else
	[ -n "$l" ] && [ "$l" -ge 1 ] || r="$r nothing told lost;"
fi
verdict formats_full_buffer_drops_counted "$r"

# Refused unloading while a configuration holds it; unloaded after.
r=""
fmt_users_released example
"$BIN/fmtcheck" "$cfg" 1000 3000 >$OUT/fmt_hold.txt 2>&1 &
hold=$!
i=0
while ! grep -q holding $OUT/fmt_hold.txt && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
u=$(fmt_users example)
[ "$u" = 1 ] || r="users $u while in use, expected 1;"
rmmod kpmc_fmt_example 2>$OUT/fmt_rmmod.txt && r="$r rmmod succeeded while in use;"
lsmod | grep -q '^kpmc_fmt_example ' || r="$r the module went while in use;"
wait $hold || r="$r fmtcheck (holding) failed: $(cat $OUT/fmt_hold.txt);"
i=0
until rmmod kpmc_fmt_example 2>/dev/null || [ $i -ge 30 ]; do sleep 0.1; i=$((i + 1)); done
lsmod | grep -q '^kpmc_fmt_example ' && r="$r rmmod still refused after the run;"
grep -q '^example ' /proc/kpmc/formats && r="$r example still listed after rmmod;"
try_write /proc/kpmc/config "$cfg" && r="$r fmt=example accepted after rmmod;"
read -r le </proc/kpmc/last_error
case $le in *"fmt=example: no such sampling format"*) ;; *) r="$r last_error '$le';" ;; esac
verdict formats_module_unload_refused_while_used "$r"

# Bad options: each refused with -EINVAL, the token named in last_error and
# dmesg; nothing held afterwards (the module unloads).
r=""
insmod $FMT_KO || r="insmod again failed;"
if [ "$(uname -m)" = aarch64 ]; then base="pmc0,ebs0=100000"; else base="pmc0=0x100000000,os0=1,tbs=1"; fi
bad_fmt() { # CONFIG EXPECTED-SUBSTRING
	if try_write /proc/kpmc/config "$1"; then
		r="$r '$1' accepted;"
		return
	fi
	read -r le </proc/kpmc/last_error
	case $le in *"$2"*) ;; *) r="$r '$1': last_error '$le' lacks '$2';" ;; esac
}
bad_fmt "$base,fmt=nosuch" "fmt=nosuch: no such sampling format"
bad_fmt "${base%%,*},fmt=callstack" "fmt=NAME needs samples to follow"
bad_fmt "$base,fmt=callstack,fmt.depth=0" "fmt.depth=0: depth wants 1 to 127"
bad_fmt "$base,fmt=callstack,fmt.depth=128" "fmt.depth=128: depth wants 1 to 127"
bad_fmt "$base,fmt=callstack,fmt.stack=up" "fmt.stack=up: stack wants kernel, user or both"
bad_fmt "$base,fmt=callstack,fmt.color=red" "fmt.color=red: fmt=callstack knows"
bad_fmt "$base,fmt.depth=3" "fmt.KEY options need fmt=NAME"
bad_fmt "$base,fmt=Call" "a-z, 0-9 and _"
bad_fmt "$base,fmt=callstack,fmt=example" "one format per set"
bad_fmt "$base,fmt=example,fmt.pad=2001" "fmt.pad=2001: fmt=example knows"
bad_fmt "$base,fmt=example,fmt.max=0" "fmt.max=0: fmt=example knows"
bad_fmt "$base,fmt=example,fmt.depth" "fmt.KEY wants a value"
dmesg | grep -q "fmt.pad=2001: fmt=example knows" || r="$r the refusal is not in dmesg;"
# System-wide records are a CPU's counts: no sample for a format to follow.
if [ "$(uname -m)" = aarch64 ]; then tcfg="pmc0,tbs=10,fmt=callstack"; else tcfg="pmc0=0x100000000,os0=1,tbs=10,fmt=callstack"; fi
kpmc -S -c "$tcfg" -- /bin/true >$OUT/fmt_sys.txt 2>&1 && r="$r system-wide with fmt=callstack accepted;"
grep -q "fmt=callstack: system-wide records carry no sampling format" $OUT/fmt_sys.txt ||
	r="$r system-wide refusal: $(tail -n 2 $OUT/fmt_sys.txt);"
# A no-loss ring keeps room for the largest sample: 127 + 127 frames are
# 8 + 254 * 8 bytes, 13 parts, 14 records with the sample.
kpmc -k 16 --no-loss -c "$base,fmt=callstack,fmt.depth=127" -- /bin/true >$OUT/fmt_noloss.txt 2>&1 &&
	r="$r a no-loss ring of 16 accepted 14-record samples;"
grep -q "noloss with a ring of 16 records: samples of up to 14 records need" $OUT/fmt_noloss.txt ||
	r="$r no-loss refusal: $(tail -n 2 $OUT/fmt_noloss.txt);"
fmt_users_released callstack
fmt_users_released example
[ "$(fmt_users example)" = 0 ] && [ "$(fmt_users callstack)" = 0 ] ||
	r="$r users left: example $(fmt_users example), callstack $(fmt_users callstack);"
rmmod kpmc_fmt_example || r="$r rmmod after refusals failed;"
verdict formats_bad_options_refused "$r"

# The registry's guards. A format without .owner is refused: nothing would
# keep its module (and the write() the overflow interrupt calls) loaded
# while a configuration uses it. Unregistering a format in use fails with
# EBUSY and leaves it registered (the module's unregister parameter calls
# kpmc_format_unregister at once); unused, it goes.
r=""
dmesg -c >/dev/null
if insmod $FMT_KO no_owner=1 2>/dev/null; then
	r="insmod with no owner accepted;"
	rmmod kpmc_fmt_example
fi
dmesg | grep -q 'kpmc: format example: no owner: set .owner = THIS_MODULE' ||
	r="$r no dmesg line for the missing owner;"
insmod $FMT_KO || r="$r insmod failed;"
UNREG=/sys/module/kpmc_fmt_example/parameters/unregister
"$BIN/fmtcheck" "$cfg" 1000 3000 >$OUT/fmt_hold2.txt 2>&1 &
hold=$!
i=0
while ! grep -q holding $OUT/fmt_hold2.txt && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
try_write $UNREG 1 && r="$r unregistered while a configuration uses it;"
u=$(fmt_users example)
[ "$u" = 1 ] || r="$r users '$u' after the refused unregister, expected 1;"
dmesg | grep -q 'kpmc: format example: not unregistered, 1 configurations use it' ||
	r="$r no dmesg line for the refused unregister;"
wait $hold || r="$r fmtcheck (holding) failed: $(cat $OUT/fmt_hold2.txt);"
fmt_users_released example
try_write $UNREG 1 || r="$r unregister refused with no user;"
grep -q '^example ' /proc/kpmc/formats && r="$r example still listed after unregister;"
rmmod kpmc_fmt_example || r="$r rmmod after unregister failed;"
verdict formats_registry_owner_and_busy_unregister "$r"
rmmod kpmc
