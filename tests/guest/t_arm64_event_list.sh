# arm64: kpmc -L lists exactly the common events perf lists for this PMU
# (perf's sysfs events/, which perf filters by PMCEID): the same set of event
# numbers. kpmc's come from the module's PMCEID maps in /proc/kpmc/info,
# named by libpfm4 or, where its table lacks one, by perf.
load
r=""
kpmc -L >$OUT/elist.txt 2>&1 || r="kpmc -L failed: $(tail -n 2 $OUT/elist.txt);"
grep -q '^core_type0_events: 0x' /proc/kpmc/info || r="$r info lacks core_type0_events;"
# kpmc's: "PMU::NAME 0xNN description" up to the implementation-defined part.
awk '/^#/ { exit } { print $2, $1 }' $OUT/elist.txt | while read -r c name; do
	printf '0x%04x %s\n' $((c)) "$name"
done | sort -u >$OUT/ekpmc_named.txt
cut -d' ' -f1 $OUT/ekpmc_named.txt | sort -u >$OUT/ekpmc.txt
# perf's: "event=0x0023" in each armv8 PMU's events/NAME.
for f in /sys/bus/event_source/devices/armv8*/events/*; do
	c=$(sed -n 's/^event=//p' "$f")
	[ -n "$c" ] && printf '0x%04x %s\n' $((c)) "${f##*/}"
done | sort -u >$OUT/eperf_named.txt
cut -d' ' -f1 $OUT/eperf_named.txt | sort -u >$OUT/eperf.txt
n=$(wc -l <$OUT/eperf.txt)
[ "$n" -gt 0 ] || r="$r perf's sysfs lists no event;"
for c in $(cat $OUT/eperf.txt); do
	grep -qx "$c" $OUT/ekpmc.txt ||
		r="$r missing from kpmc -L: $(grep "^$c " $OUT/eperf_named.txt | head -n 1);"
done
for c in $(cat $OUT/ekpmc.txt); do
	grep -qx "$c" $OUT/eperf.txt ||
		r="$r kpmc -L lists what perf does not: $(grep "^$c " $OUT/ekpmc_named.txt | head -n 1);"
done
echo "eventlist: perf's $(tr '\n' ' ' <$OUT/eperf_named.txt); kpmc -L's $(tr '\n' ' ' <$OUT/ekpmc_named.txt)"
verdict arm64_eventlist_equals_perf "$r"
[ -n "$r" ] && cat $OUT/elist.txt /proc/kpmc/info

# A filter keeps to the same set; libpfm4's implementation-defined events follow a '#' line.
r=""
kpmc -L INST_RETIRED >$OUT/elist2.txt 2>&1 || r="kpmc -L INST_RETIRED failed;"
grep -q '^arm_ac57::INST_RETIRED  *0x08 ' $OUT/elist2.txt || r="$r no INST_RETIRED 0x08: $(head -n 2 $OUT/elist2.txt);"
grep -q '^# implementation-defined' $OUT/elist.txt || r="$r no implementation-defined section;"
awk '/^#/ { s = 1; next } s && $2 !~ /^0x/ { bad = 1 } END { exit bad }' $OUT/elist.txt || r="$r an implementation-defined line without its number;"
verdict arm64_eventlist_filter_impdef "$r"
rmmod kpmc
