# Both architectures: the RAPL and CMT/MBM modules where the CPU has neither
# (QEMU's TCG Skylake-Client: its RAPL MSRs read 0, CPUID stops at leaf 0dh;
# arm64: x86-only).
# Listed as unavailable with the precise reason in mm_manager and kpmc -I;
# "activate" refused with -ENODEV and the reason in dmesg and last_error;
# the active module unchanged.
load
if [ "$(uname -m)" = x86_64 ]; then
	rapl_why='no RAPL: MSR_RAPL_POWER_UNIT (0x606) reads 0 (an emulated CPU without RAPL?)'
	cmt_why="no CMT: CPUID's highest leaf is 0dh, below 0fh"
else
	rapl_why='RAPL is x86-only'
	cmt_why='CMT/MBM is x86-only'
fi
for mod in "4 rapl|$rapl_why" "5 cmt|$cmt_why"; do
	n=${mod%% *} name=${mod%%|*} name=${name#* } why=${mod#*|}
	r=""
	grep -qF "$n $name [unavailable: $why] - " /proc/kpmc/mm_manager ||
		r="mm_manager: $(grep "^$n " /proc/kpmc/mm_manager);"
	kpmc -I >$OUT/info_$name.txt 2>&1
	grep -qF "$n $name [unavailable: $why]" $OUT/info_$name.txt || r="$r kpmc -I does not list it so;"
	dmesg -c >/dev/null
	# dd names the errno; the shell's own write and read give the writer's last_error.
	printf 'activate %s' "$n" | dd of=/proc/kpmc/mm_manager 2>$OUT/werr && r="$r activate $n accepted;"
	grep -q "No such device" $OUT/werr || r="$r activate $n: $(tail -n 1 $OUT/werr), expected ENODEV;"
	le=$({ printf 'activate %s' "$n" >/proc/kpmc/mm_manager; } 2>/dev/null; read -r le </proc/kpmc/last_error; echo "$le")
	case $le in *"$why") ;; *) r="$r last_error: '$le';" ;; esac
	dmesg | grep -qF "module $n cannot be activated: $why" || r="$r dmesg: $(dmesg | grep kpmc | tail -n 1);"
	grep -q '^monitoring_module: passthrough' /proc/kpmc/info || r="$r active module changed;"
	echo "$name: $(grep "^$n " /proc/kpmc/mm_manager)"
	verdict "modules_${name}_unavailable" "$r"
done
rmmod kpmc
