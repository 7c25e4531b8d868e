# Tests for both architectures: load/unload cycles and strict /proc parsing.

# Before the module is loaded, kpmc says so plainly.
lsmod | grep -q '^kpmc ' && rmmod kpmc
r=""
kpmc -c pmc0 -- /bin/true >$OUT/noload.txt 2>&1 && r="kpmc succeeded without the module;"
grep -q "kpmc kernel module is not loaded" $OUT/noload.txt || r="$r message: $(cat $OUT/noload.txt)"
verdict cli_module_not_loaded "$r"

# insmod/rmmod 20 times; the module must come back clean every time.
r=""
i=0
while [ $i -lt 20 ]; do
	insmod "$KO" || { r="insmod #$i failed"; break; }
	[ -r /proc/kpmc/info ] || { r="no /proc/kpmc/info after insmod #$i"; break; }
	rmmod kpmc || { r="rmmod #$i failed"; break; }
	[ ! -e /proc/kpmc ] || { r="/proc/kpmc left after rmmod #$i"; break; }
	i=$((i + 1))
done
verdict load_unload_20x "$r"

load
# Bad strings for each writable file: each write must fail with EINVAL (ENODEV
# for config where there is no PMU) and change nothing. Each is one write()
# by the shell's printf, whose error message names the errno.
r=""
nbad=0
config_errno="Invalid argument"
grep -q '^backend: none' /proc/kpmc/info && config_errno="No such device"
expect_error() { # FILE STRING EXPECTED-ERROR
	nbad=$((nbad + 1))
	shown=$(printf '%.40s' "$2")
	# dd makes the one write() and names its errno; printf expands \n, \000.
	if printf "$2" | dd of="$1" bs=65536 iflag=fullblock conv=notrunc 2>$OUT/werr; then
		r="$r $1 accepted '$shown';"
	elif ! grep -q "$3" $OUT/werr; then
		r="$r $1 '$shown': $(tail -n1 $OUT/werr), expected $3;"
	fi
}
junk=$(head -c 4096 /dev/zero | tr '\0' 'x')
before=$(cat /proc/kpmc/config)
for s in "\n" "pmc99=0x8" "pmc0=0xzz" "pmc1=0xzz" "pmc1=" "pmc1" "pmc-1=8" \
	"pmc1=0x8," ",pmc1=0x8" "pmc1=0x8,,os1=1" "pmc1=0x8 " " pmc1=0x8" \
	"foo" "pmc" "pmcx=1" "usr1=1" "pmc1=0x8,usr2=1" "pmc1=0x8,usr1=2" \
	"pmc1=0x8,os1" "pmc1=0x8,usr1=0,os1=0" "pmc1=0x10000" "pmc1=0x8,pmc1=0x8" \
	"pmc1=99999999999999999999999" "tbs=100" "pmc1=0x8,tbs=x" \
	"pmc1=0x8,tbs=86400001" "pmc1=0x8;;pmc2=0x8" "pmc1=0x8;" "pmc1=0x8,mux=5" \
	"pmc1=0x8;pmc1=0x8;pmc1=0x8;pmc1=0x8;pmc1=0x8" "pmc0,ebs0=100" "pmc0,ebs0=100000,rnd=100000" "PMC1=0x8" "pmc1=0x8\n\n" \
	"pmc1=0x8\tusr1=1" 'pmc1=0x8\000pmc2=0x8' "pmc1=0x8,mux=4,muxrnd=4;pmc1=0x8" \
	"pmc1=0x8,muxrnd=1" "pmc1=0x8,muxrnd=x;pmc1=0x8" "pmc1=0x8,seed=3;pmc1=0x8" "$junk"; do
	expect_error /proc/kpmc/config "$s" "$config_errno"
done
for s in "\n" "2" "11" "-1" "pid=" "pid=abc" "pid=0" "pid=1,exe" "pid=1,exec,exec" \
	"pid=99999999999" "on" "1 " "pid=1 " '1\000' "stopx" "stop " "STOP" "$junk"; do
	expect_error /proc/kpmc/enable "$s" "Invalid argument"
done
for s in "\n" "activate" "activate " "activate x" "activate 99" "activate -1" \
	"activate 0 1" "enable 0" 'activate 0\000' "$junk"; do
	expect_error /proc/kpmc/mm_manager "$s" "Invalid argument"
done
for f in info last_error monitor; do
	nbad=$((nbad + 1))
	printf 'pmc1=0x8' 2>/dev/null >/proc/kpmc/$f && r="$r $f accepted a write;"
done
after=$(cat /proc/kpmc/config)
[ "$before" = "$after" ] || r="$r config changed by rejected writes ('$before' -> '$after');"
grep -q '^0 passthrough \[active\]' /proc/kpmc/mm_manager || r="$r active module changed;"
[ $nbad -ge 30 ] || r="$r only $nbad bad strings tried"
verdict "bad_input_rejected_${nbad}_strings" "$r"

# Each rejection names the offending token in dmesg.
r=""
dmesg -c >/dev/null
if ! grep -q '^backend: none' /proc/kpmc/info; then
	# An event every backend here accepts, so the parser reaches the bad token.
	ev=0x8
	grep -q '^backend: perf' /proc/kpmc/info && ev=0x100000003
	printf "pmc1=$ev,bogus7=1" 2>/dev/null >/proc/kpmc/config
	dmesg | grep -q "kpmc: config: '.*bogus7=1': unknown token" || r="no dmesg line naming 'bogus7=1'"
fi
printf 'activate 77' 2>/dev/null >/proc/kpmc/mm_manager
dmesg | grep -q "kpmc: mm_manager: 'activate 77': no monitoring module 77" || r="$r; no dmesg line naming 'activate 77'"
printf 'pid=1,exe' 2>/dev/null >/proc/kpmc/enable
dmesg | grep -q "kpmc: enable: .*',exe'" || r="$r; no dmesg line naming ',exe'"
# last_error is per thread: read it from this shell, not a child process.
read -r le </proc/kpmc/last_error
case $le in *",exe'"*) ;; *) r="$r; last_error '$le' does not name ',exe'" ;; esac
verdict bad_input_named_in_dmesg "$r"

# Control bytes in a bad token never reach dmesg or last_error raw: a
# newline and an escape sequence are shown as '?'.
r=""
printf 'pid=1,x\n\033[31mred' 2>/dev/null >/proc/kpmc/enable
exec 3<>/proc/kpmc/monitor
printf 'ring=\033[1m' >&3 2>/dev/null
exec 3>&-
printf 'activate \033x' 2>/dev/null >/proc/kpmc/mm_manager
esc=$(printf '\033')
dmesg | grep -q "kpmc: enable: ',x??\[31mred': unknown option" || r="no sanitized dmesg line for the enable write;"
dmesg | grep -q "kpmc: monitor: 'ring=?\[1m': expected ring=N" || r="$r no sanitized dmesg line for the monitor write;"
dmesg | grep -q "kpmc: mm_manager: 'activate ?x': expected 'activate N'" || r="$r no sanitized dmesg line for mm_manager;"
dmesg | grep -q "$esc" && r="$r an escape byte reached dmesg;"
read -r le </proc/kpmc/last_error
case $le in *"$esc"*) r="$r an escape byte in last_error;" ;; *"activate ?x"*) ;; *) r="$r last_error '$le' does not name the token;" ;; esac
verdict bad_input_sanitized "$r"
