# arm64: memory sampling from decoded instructions (mem=1). memobjects reads
# a[64][64] row by row, b only in row 3, writes c, 300 times, in
# hand-written loops; kpmc samples it every 15,000 +/- 5,000 user cycles
# (the cycle counter: its overflow interrupt is exact under icount, an event
# counter's comes late in QEMU 7.2) and memcheck judges every MEM record
# (tests/progs/memcheck.c): addresses, objects, indices, kinds, exactness
# against the loop's instruction count, and each object's share.
load
r=""
grep -q '^memory_sampling: decoded instructions' /proc/kpmc/info ||
	r="info: $(grep memory_sampling /proc/kpmc/info);"
kpmc -k 16384 -o $OUT/memtrace.txt -w $OUT/mem.raw -c pmc0,ebs0=15000,rnd=5000,seed=7,mem=1 -- \
	"$BIN/memobjects" 300 >$OUT/memlayout.txt 2>$OUT/memerr.txt ||
	r="$r kpmc failed: $(tail -n 3 $OUT/memerr.txt);"
"$BIN/memcheck" $OUT/memlayout.txt $OUT/mem.raw 0 >$OUT/memcheck.txt 2>&1 ||
	r="$r $(grep -m 5 FAIL $OUT/memcheck.txt | tr '\n' ' ');"
cat $OUT/memcheck.txt
grep -m 4 ' mem ' $OUT/memtrace.txt
verdict arm64_mem_samples_exact_objects_shares "$r"

# The same on loops as GCC -O2 writes them (loopnest: a 2-D array read
# row-wise, another column-wise, a pointer bumped by a constant after its
# load, a loop whose head follows a once-per-call load, a row-wise vector
# store). loopcheck (tests/progs/loopcheck.c) judges every MEM record:
# addresses lost at most 10% of the samples at an access, at most 1%
# charged to the load before the head loop, every address of its loop's
# object and on one lattice of repetitions for all five loops (exact).
r=""
kpmc -k 16384 -w $OUT/loopnest.raw -o /dev/null -c pmc0,ebs0=15000,rnd=5000,seed=11,mem=1 -- \
	"$BIN/loopnest" 200 >$OUT/loopnest.txt 2>$OUT/loopnest_err.txt ||
	r="kpmc failed: $(tail -n 3 $OUT/loopnest_err.txt);"
"$BIN/loopcheck" $OUT/loopnest.txt $OUT/loopnest.raw 0 >$OUT/loopcheck.txt 2>&1 ||
	r="$r $(grep -m 5 FAIL $OUT/loopcheck.txt | tr '\n' ' ');"
cat $OUT/loopcheck.txt
artifact $OUT/loopnest.txt loopnest.txt
verdict arm64_mem_gcc_loop_nests "$r"

# The same seed, the same samples: the decoded addresses depend on nothing
# but the program and the sampling stream, once the program's own start-up
# is the same (libc's string functions take alignment-dependent paths over
# a randomized stack: address randomization off for these two runs).
r=""
aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space
kpmc -k 16384 -o $OUT/memtrace1.txt -c pmc0,ebs0=15000,rnd=5000,seed=7,mem=1 -- \
	"$BIN/memobjects" 300 >$OUT/memlayout1.txt 2>&1 || r="kpmc failed;"
kpmc -k 16384 -o $OUT/memtrace2.txt -c pmc0,ebs0=15000,rnd=5000,seed=7,mem=1 -- \
	"$BIN/memobjects" 300 >$OUT/memlayout2.txt 2>&1 || r="$r kpmc failed;"
echo $aslr >/proc/sys/kernel/randomize_va_space
a=$(grep ' mem ' $OUT/memtrace1.txt | awk '{ $2 = $3 = ""; print }' | md5sum)
b=$(grep ' mem ' $OUT/memtrace2.txt | awk '{ $2 = $3 = ""; print }' | md5sum)
[ "$a" = "$b" ] || r="$r two runs with seed 7 sampled different accesses;"
verdict arm64_mem_samples_repeatable "$r"

# libkpmc, Mitos's way: the program registers a, b, c (kpmc_add_symbol,
# 64 x 64), samples itself with mem=1; every sample at the loops' memory
# instructions names its object and element (memlib checks), the handler saw
# each one, and the CSV has Mitos's columns: b's rows all 3, c's all stores,
# each object's row count what memlib counted.
r=""
"$BIN/memlib" 200 $OUT/mem.csv >$OUT/memlib.txt 2>&1 || r="memlib failed: $(cat $OUT/memlib.txt);"
cat $OUT/memlib.txt
hdr=$(head -n 1 $OUT/mem.csv)
[ "$hdr" = "source,line,instruction,bytes,ip,variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,level,hit_type,op_type,snoop_mode,tlb_access" ] ||
	r="$r CSV header: $hdr;"
rows=$(($(wc -l <$OUT/mem.csv) - 1))
n=$(sed -n 's/^memlib: samples \([0-9]*\) .*/\1/p' $OUT/memlib.txt)
[ "$rows" = "$n" ] || r="$r $rows CSV rows for $n samples;"
awk -F, 'NR > 1 && NF != 22 { bad++ } END { exit bad > 0 }' $OUT/mem.csv || r="$r CSV rows without 22 columns;"
bx=$(awk -F, 'NR > 1 && $6 == "b" && $9 != 3 { n++ } END { print n + 0 }' $OUT/mem.csv)
cs=$(awk -F, 'NR > 1 && $6 == "c" && $20 != "store" { n++ } END { print n + 0 }' $OUT/mem.csv)
[ "$bx" = 0 ] && [ "$cs" = 0 ] || r="$r CSV: $bx rows of b outside row 3, $cs rows of c not stores;"
for o in a b c; do
	want=$(sed -n "s/.* $o \([0-9]*\) .*/\1/p" $OUT/memlib.txt)
	got=$(awk -F, -v o=$o 'NR > 1 && $6 == o && $5 != "" { n++ } END { print n + 0 }' $OUT/mem.csv)
	[ "${want:-0}" -ge 50 ] && [ "$got" -ge "$want" ] || r="$r object $o: $got CSV rows, memlib counted ${want:-none} at the loops;"
done
head -n 3 $OUT/mem.csv
# The host renders b's heat map from this CSV (scripts/heatmap.sh --csv).
artifact $OUT/mem.csv heatcsv_b_64x64.csv
verdict arm64_libkpmc_mem_objects_indices_csv "$r"

# kpmc mem: a run reported by instruction (function+offset through libdw)
# and by data object (the program's data symbols). Its figures are the raw
# records' of the same run (memcheck on its -w file): a's loop instruction
# has every sample of a; the objects a, b, c have memcheck's counts, a and b
# loads only, c stores only, each its 32,768 bytes.
r=""
kpmc mem -e 15000 -w $OUT/memcli.raw -o $OUT/memrep.txt \
	--heatmap a:64x64:$OUT/heat_a.dat --heatmap b:64x64:$OUT/heat_b.dat -- "$BIN/memobjects" 300 \
	>$OUT/memcli_layout.txt 2>$OUT/memcli_err.txt || r="kpmc mem failed: $(tail -n 3 $OUT/memcli_err.txt);"
"$BIN/memcheck" $OUT/memcli_layout.txt $OUT/memcli.raw 0 >$OUT/memcli_check.txt 2>&1 ||
	r="$r memcheck of kpmc mem's run: $(grep -m 3 FAIL $OUT/memcli_check.txt | tr '\n' ' ');"
head -n 8 $OUT/memrep.txt
sed -n '/^# data view/,$p' $OUT/memrep.txt | head -n 6
lda=$(sed -n 's/.* lda \(0x[0-9a-f]*\).*/\1/p' $OUT/memcli_layout.txt)
for o in a b c; do
	want=$(sed -n "s/.* $o \([0-9]*\),.*/\1/p" $OUT/memcli_check.txt | head -n 1)
	row=$(sed -n '/^# data view/,$p' $OUT/memrep.txt | awk -v o=$o '$6 == o { print $1, $4, $5, $7 }')
	case $o in
	c) exp="$want 0 $want 32768" ;;
	*) exp="$want $want 0 32768" ;;
	esac
	[ -n "$want" ] && [ "$row" = "$exp" ] || r="$r data view $o: '$row', expected '$exp';"
done
want=$(sed -n 's/.* a \([0-9]*\),.*/\1/p' $OUT/memcli_check.txt | head -n 1)
# (memobjects is built with -g: the line is the loop's, in memloops.h.)
row=$(sed -n '/^# instruction view/,/^# data view/p' $OUT/memrep.txt | awk -v ip=$lda '$7 == ip { print $1, $8, $9 }')
case "$row" in
"$want read_a+0x10 memloops.h:"* | "$want memobj_lda+0x0 memloops.h:"*) ;;
*) r="$r instruction view at $lda: '$row', expected $want samples in read_a at memloops.h;" ;;
esac
kpmc mem --csv -e 15000 -o $OUT/memcli.csv -- "$BIN/memobjects" 20 >/dev/null 2>&1 || r="$r kpmc mem --csv failed;"
[ "$(head -n 1 $OUT/memcli.csv)" = "source,line,instruction,bytes,ip,variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,level,hit_type,op_type,snoop_mode,tlb_access" ] ||
	r="$r kpmc mem --csv header: $(head -n 1 $OUT/memcli.csv);"
awk -F, 'NR > 1 && $6 == "c" && $20 != "store" { bad++ } NR > 1 && NF != 22 { bad++ } END { exit bad > 0 }' $OUT/memcli.csv ||
	r="$r kpmc mem --csv rows;"
# A program gone before kpmc's first read of its records still gets its
# symbols: kpmc mem reads its map right after the exec.
kpmc mem -e 10000 -o $OUT/memshort.txt --heatmap a:64x64:$OUT/heat_short.dat -- "$BIN/memobjects" 2 \
	>/dev/null 2>$OUT/memshort_err.txt || r="$r kpmc mem of a short run failed: $(tail -n 2 $OUT/memshort_err.txt);"
grep -q '^# [0-9]* memory samples of /tests/bin/memobjects' $OUT/memshort.txt ||
	r="$r short run: $(head -n 1 $OUT/memshort.txt);"
verdict arm64_kpmc_mem_views_match_records "$r"

# The topology view (hwloc): one row per CPU that took samples, which
# together hold every sample at an access; hwloc sees this guest's CPUs. On
# one CPU the row is exact: CPU 0, core 0, package 0, NUMA node 0. The JSON
# report of a run has the same views; the host checks that each sums to the
# run's totals (tests/host/check_mem_json.py).
r=""
ncpu=$(grep -c '^processor' /proc/cpuinfo)
at=$(sed -n 's/^# [0-9]* memory samples of [^:]*: \([0-9]*\) at a load or store.*/\1/p' $OUT/memrep.txt)
sed -n '/^# topology view/,$p' $OUT/memrep.txt
grep -q "^# topology view (hwloc: [0-9]* packages*, [0-9]* cores*, $ncpu PUs*, 1 NUMA node)" $OUT/memrep.txt ||
	r="topology for $ncpu CPUs: $(grep '^# topology' $OUT/memrep.txt);"
sum=$(sed -n '/^# topology view/,$p' $OUT/memrep.txt | awk -v n=$ncpu 'NR > 2 { s += $1; if ($3 >= n) bad++ } END { print bad ? -1 : s + 0 }')
[ -n "$at" ] && [ "$sum" = "$at" ] || r="$r topology rows sum to '$sum', expected '$at';"
if [ "$ncpu" = 1 ]; then
	row=$(sed -n '/^# topology view/,$p' $OUT/memrep.txt | awk 'NR > 2 { print $1, $3, $4, $5, $6 }')
	[ "$row" = "$at 0 0 0 0" ] || r="$r topology row '$row', expected '$at 0 0 0 0';"
fi
kpmc mem --json -n 100000 -e 15000 -o $OUT/mem_objects.json -- "$BIN/memobjects" 30 >/dev/null 2>&1 ||
	r="$r kpmc mem --json failed;"
[ "$ncpu" != 1 ] || grep -q '^{"cpu":0,"core":0,"package":0,"numa":0,' $OUT/mem_objects.json ||
	r="$r JSON cpus: $(grep -A1 '"cpus"' $OUT/mem_objects.json);"
grep -q '^{"object":"a","bytes":32768,"samples":[0-9]*,"loads":[0-9]*,"stores":0,' $OUT/mem_objects.json ||
	r="$r JSON objects: $(grep -A1 '"objects"' $OUT/mem_objects.json);"
artifact $OUT/mem_objects.json mem_objects.json
verdict arm64_kpmc_mem_topology_json "$r"

# Heat maps of a and b (kpmc mem --heatmap): samples of a spread over all 64
# rows, b's all in row 3; each sums to the data view's count. The host
# renders them with gnuplot (build/arm64/run/artifacts/heat_*.png).
r=""
for o in a b; do
	want=$(sed -n '/^# data view/,$p' $OUT/memrep.txt | awk -v o=$o '$6 == o { print $1 }')
	got=$(awk '!/^#/ { for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }' $OUT/heat_$o.dat)
	[ "$got" = "$want" ] || r="$r heat map of $o sums to $got, the data view says $want;"
	[ "$(grep -vc '^#' $OUT/heat_$o.dat)" = 64 ] || r="$r heat map of $o has not 64 rows;"
done
rows_b=$(awk '!/^#/ { s = 0; for (i = 1; i <= NF; i++) s += $i; if (s) printf "%d ", NR - 2 }' $OUT/heat_b.dat)
[ "$rows_b" = "3 " ] || r="$r b's samples in rows '$rows_b', expected only 3;"
rows_a=$(awk '!/^#/ { s = 0; for (i = 1; i <= NF; i++) s += $i; if (s) n++ } END { print n + 0 }' $OUT/heat_a.dat)
[ "$rows_a" -ge 60 ] || r="$r a's samples in only $rows_a of 64 rows;"
artifact $OUT/heat_a.dat heat_a.dat
artifact $OUT/heat_b.dat heat_b.dat
verdict arm64_kpmc_mem_heatmaps "$r"

# Bad input: mem=1 without a sampling counter, and a bad value, are refused
# with the token named.
r=""
echo "pmc0,mem=1" >/proc/kpmc/config 2>/dev/null && r="mem=1 without ebs accepted;"
dmesg | tail -n 1 | grep -q "mem=1 needs an ebsN" || r="$r no reason in dmesg: $(dmesg | tail -n 1);"
echo "pmc0,ebs0=100000,mem=2" >/proc/kpmc/config 2>/dev/null && r="$r mem=2 accepted;"
dmesg | tail -n 1 | grep -q "'mem=2'" || r="$r the bad token is not named: $(dmesg | tail -n 1);"
# A load-latency threshold needs a source that has one (PEBS): decoded has none.
echo "pmc0,ebs0=100000,mem=1,ldlat=30" >/proc/kpmc/config 2>/dev/null && r="$r ldlat accepted;"
dmesg | tail -n 1 | grep -q "ldlat: this PMU's memory sampling has no load-latency threshold" ||
	r="$r no reason for ldlat in dmesg: $(dmesg | tail -n 1);"
verdict arm64_mem_bad_input "$r"
rmmod kpmc
