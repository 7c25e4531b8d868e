# arm64: event names through libpfm4. The names resolve to the same counters
# and counts as the raw form; unknown names get close matches.
load
agg() { # FILE COLUMN: of the first thread row of a "kpmc -A" output
	awk -v c=$2 '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $c; exit }' "$1"
}
r=""
kpmc -A -c pmc0,pmc1=0x8 -- "$BIN/loop" 3000000 >$OUT/nraw.txt 2>&1 || r="raw run failed;"
kpmc -A -c instr,cycles -- "$BIN/loop" 3000000 >$OUT/nmn.txt 2>&1 || r="$r mnemonics failed: $(tail -n 2 $OUT/nmn.txt);"
kpmc -A -c INST_RETIRED:u,CPU_CYCLES:u -- "$BIN/loop" 3000000 >$OUT/npfm.txt 2>&1 || r="$r libpfm4 names failed: $(tail -n 2 $OUT/npfm.txt);"
for f in nmn npfm; do
	for c in 4 5; do
		within_slack "$(agg $OUT/$f.txt $c)" "$(agg $OUT/nraw.txt $c)" ||
			r="$r $f column $c: $(agg $OUT/$f.txt $c) vs raw $(agg $OUT/nraw.txt $c);"
	done
done
grep -q '^pmc0=0x11 (user)' $OUT/nmn.txt && grep -q '^pmc1=0x8 (user)' $OUT/nmn.txt ||
	r="$r mnemonics not on pmc0 (fixed cycles) and pmc1: $(grep '^pmc' $OUT/nmn.txt | tr '\n' ' ');"
echo "names: raw $(agg $OUT/nraw.txt 4)/$(agg $OUT/nraw.txt 5), instr,cycles $(agg $OUT/nmn.txt 4)/$(agg $OUT/nmn.txt 5)"
verdict arm64_event_names_equal_raw "$r"

r=""
kpmc -c INST_RETIRD -- /bin/true >$OUT/nbad.txt 2>&1 && r="an unknown name was accepted;"
grep -q "unknown event 'INST_RETIRD'; did you mean: INST_RETIRED" $OUT/nbad.txt || r="$r message: $(cat $OUT/nbad.txt);"
kpmc -L INST_RETIRED >$OUT/nlist.txt 2>&1 || r="$r kpmc -L failed;"
grep -q 'arm_ac57::INST_RETIRED ' $OUT/nlist.txt || r="$r -L lacks the cortex-a57's INST_RETIRED: $(head -n 3 $OUT/nlist.txt);"
# Sampling by name: cycles every 1e6 on 10,011,013 instructions -> 10 records.
kpmc -c cycles:ebs=1000000 -- "$BIN/loop" 5000000 >$OUT/nebs.txt 2>&1 || r="$r cycles:ebs failed;"
n=$(trace_count $OUT/nebs.txt ebs)
[ "$n" -eq 10 ] || r="$r cycles:ebs=1000000 gave $n ebs records, expected 10;"
verdict arm64_event_names_errors_list_ebs "$r"
rmmod kpmc
