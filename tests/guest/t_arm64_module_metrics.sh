# arm64: the metrics module's IPC and CPI equal instructions/cycles computed
# from the raw counters of the same records.
load
r=""
echo "activate 2" >/proc/kpmc/mm_manager || r="activate 2 failed;"
kpmc -c pmc0,pmc1=0x8 -T 0.02 -- "$BIN/loop" -t 20000000 30000000 >$OUT/met.txt 2>&1 || r="$r kpmc failed;"
grep -q 'ipc_milli' $OUT/met.txt || r="$r header lacks ipc_milli;"
# rows: nsample pid tid event pmc0(cycles) pmc1(instr) ipc_milli cpi_milli instr_per_ms
rows=$(awk '$1 ~ /^[0-9]+$/ && $4 ~ /^[a-z]/' $OUT/met.txt | wc -l)
bad=$(awk '$1 ~ /^[0-9]+$/ && $4 ~ /^[a-z]/ && $5 > 0 && $6 > 0 {
	ipc = int($6 * 1000 / $5); cpi = int($5 * 1000 / $6)
	if ($7 != ipc || $8 != cpi) n++ } END { print n + 0 }' $OUT/met.txt)
echo "metrics: $rows records, $bad with IPC/CPI not matching the raw counts"
[ "$rows" -ge 5 ] && [ "$bad" -eq 0 ] || r="$r $bad of $rows records disagree: $(head -n 8 $OUT/met.txt | tail -n 3 | tr '\n' ';');"
# -V shows only the named virtual counters; an unknown name is refused with the list.
kpmc -V ipc_milli -c pmc0,pmc1=0x8 -- "$BIN/loop" 1000 >$OUT/metv.txt 2>&1 || r="$r -V failed;"
hdr=$(grep '^nsample' $OUT/metv.txt)
case $hdr in *ipc_milli*cpi_milli*) r="$r -V did not filter: $hdr;" ;; *ipc_milli*) ;; *) r="$r -V header: $hdr;" ;; esac
kpmc -V bogus -c pmc0 -- /bin/true >$OUT/metbad.txt 2>&1 && r="$r -V bogus accepted;"
grep -q "no virtual counter 'bogus'; it has: ipc_milli cpi_milli mpki_milli instr_per_ms" $OUT/metbad.txt ||
	r="$r -V bogus message: $(cat $OUT/metbad.txt);"
echo "activate 0" >/proc/kpmc/mm_manager
verdict arm64_metrics_ipc_from_raw_counts "$r"
rmmod kpmc
