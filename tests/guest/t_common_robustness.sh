# Tests for both architectures: load/unload cycles and strict /proc parsing.

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
# Bad strings for each writable file: each write must fail, and change nothing.
# (Written with one write() each; "\000" bytes go through printf.)
r=""
nbad=0
junk=$(head -c 4096 /dev/zero | tr '\0' 'x')
before=$(cat /proc/kpmc/config)
for s in "\n" "pmc99=0x8" "pmc0=0xzz" "pmc1=0xzz" "pmc1=" "pmc1" "pmc-1=8" \
	"pmc1=0x8," ",pmc1=0x8" "pmc1=0x8,,os1=1" "pmc1=0x8 " " pmc1=0x8" \
	"foo" "pmc" "pmcx=1" "usr1=1" "pmc1=0x8,usr2=1" "pmc1=0x8,usr1=2" \
	"pmc1=0x8,os1" "pmc1=0x8,usr1=0,os1=0" "pmc1=0x10000" "pmc1=0x8,pmc1=0x8" \
	"pmc1=99999999999999999999999" "tbs=100" "pmc1=0x8,tbs=x" \
	"pmc1=0x8,tbs=86400001" "pmc1=0x8;pmc2=0x8" "PMC1=0x8" "pmc1=0x8\n\n" \
	"pmc1=0x8\tusr1=1" "$junk"; do
	nbad=$((nbad + 1))
	if printf "$s" 2>/dev/null >/proc/kpmc/config; then
		r="$r config accepted '$s';"
	fi
done
# NUL bytes inside a write.
nbad=$((nbad + 1))
printf 'pmc1=0x8\000pmc2=0x8' 2>/dev/null >/proc/kpmc/config && r="$r config accepted NUL bytes;"
for s in "\n" "2" "11" "-1" "pid=" "pid=abc" "pid=0" "pid=1,exe" "pid=1,exec,exec" \
	"pid=99999999999" "on" "1 " "pid=1 " "$junk"; do
	nbad=$((nbad + 1))
	if printf "$s" 2>/dev/null >/proc/kpmc/enable; then
		r="$r enable accepted '$s';"
	fi
done
for s in "\n" "activate" "activate " "activate x" "activate 99" "activate -1" \
	"activate 0 1" "enable 0" "$junk"; do
	nbad=$((nbad + 1))
	if printf "$s" 2>/dev/null >/proc/kpmc/mm_manager; then
		r="$r mm_manager accepted '$s';"
	fi
done
for f in info last_error monitor; do
	nbad=$((nbad + 1))
	printf 'pmc1=0x8' 2>/dev/null >/proc/kpmc/$f && r="$r $f accepted a write;"
done
after=$(cat /proc/kpmc/config)
[ "$before" = "$after" ] || r="$r config changed by rejected writes ('$before' -> '$after');"
[ $nbad -ge 30 ] || r="$r only $nbad bad strings tried"
verdict "bad_input_rejected_${nbad}_strings" "$r"

# Each rejection names the offending token in dmesg.
r=""
dmesg -c >/dev/null
if ! grep -q '^backend: none' /proc/kpmc/info; then
	printf 'pmc1=0x8,bogus7=1' 2>/dev/null >/proc/kpmc/config
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
