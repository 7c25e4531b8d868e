#!/usr/bin/env bash
# Host test of the call stacks, without a kernel: gen_records --stacks writes
# fmt=callstack's records for callchain (tests/progs) built here, whose
# functions' addresses it is given; kpmc -R prints them (stack lines after
# their samples, the incomplete and malformed ones told); with the map and
# ksym lines a recording would have written, kpmc report gives the exact
# self/total table and folded stacks, finds the binary by build-id under
# --symfs, refuses a binary of another build-id and a malformed trace line;
# kpmc-flame draws the folded stacks (check_flame_svg.py). Exact values:
# the stream is fixed (see gen_records.c).
#   tests/host/stacks.sh KPMC OUTDIR   (kpmc-flame next to KPMC)
set -uo pipefail
kpmc=${1:?usage: stacks.sh KPMC OUTDIR}
out=${2:?}
# Absolute: the checks run in OUTDIR.
kpmc=$(cd "$(dirname "$kpmc")" && pwd)/$(basename "$kpmc")
flame=$(dirname "$kpmc")/kpmc-flame
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
fails=()
fail() { fails+=("$1"); }

gcc -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -o "$out/gen_records" "$top/tests/host/gen_records.c" ||
	{ echo "stacks: gen_records does not build"; exit 1; }
gcc -static -std=gnu11 -Wall -Wextra -Werror -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-I"$top/include" -o "$out/callchain" "$top/tests/progs/callchain.c" ||
	{ echo "stacks: callchain does not build"; exit 1; }
addr() { nm "$out/callchain" | awk -v s="$1" '$3 == s && ($2 == "T" || $2 == "t") { print "0x" $1 }'; }
MAIN=$(addr main) A=$(addr a) B=$(addr b) C=$(addr c)
"$out/gen_records" --stacks "$MAIN" "$A" "$B" "$C" >"$out/stacks.bin" || { echo "stacks: gen_records --stacks failed"; exit 1; }

# ---- kpmc -R: stack lines after their samples, problems in place ----
"$kpmc" -R "$out/stacks.bin" >"$out/replay.txt" 2>"$out/replay.err" || fail "kpmc -R exited $?"
hx() { printf '0x%x' $(($1)); }
leaf=$(hx "$C + 2") bret=$(hx "$B + 6") aret=$(hx "$A + 6") mret=$(hx "$MAIN + 0x20")
n=$(grep -Ec '^ *[0-9]+ +[0-9]+ +[0-9]+ +stack ' "$out/replay.txt")
[ "$n" = 53 ] || fail "$n stack lines, not 53"
grep -qx "      1     300     300   stack u=$leaf,$bret,$aret,$mret" "$out/replay.txt" ||
	fail "sample 1's stack line is not 'u=$leaf,$bret,$aret,$mret'"
[ "$(grep -B1 '^     31     300     300   stack' "$out/replay.txt" | head -n1 | awk '{ print $1, $4 }')" = "31 ebs" ] ||
	fail "sample 31's stack line does not follow its ebs row"
grep -qx "     31     300     300   stack k=0xffffffff81001010,0xffffffff81000008 u=$leaf,$bret,$aret,$mret" "$out/replay.txt" ||
	fail "sample 31's kernel and user frames"
grep -qx "     46     300     300   stack u=0x7000 ufault" "$out/replay.txt" || fail "sample 46: u=0x7000 ufault"
grep -qx "     45     300     300   stack empty" "$out/replay.txt" || fail "sample 45: empty"
grep -qx "# stack of sample 42 (pid 300, tid 300) incomplete: its thread's next sample came after 1 of its 2 parts" "$out/replay.txt" ||
	fail "sample 42 not told incomplete"
grep -qx "# stack of sample 44 (pid 300, tid 300) malformed: payload of 16 bytes for 0 kernel and 5 user frames (48 bytes)" "$out/replay.txt" ||
	fail "sample 44 not told malformed"
grep -qx "kpmc: call stacks: 53 whole, 1 incomplete (parts missing), 1 malformed (marked '# stack of sample ...')" "$out/replay.err" ||
	fail "no summary of the stacks on stderr: $(head -n 3 "$out/replay.err" | tr '\n' '|')"
grep -qx "kpmc: 2 records of other sampling formats (1 samples' worth) skipped: this CLI shows fmt=callstack and mem=1" "$out/replay.err" ||
	fail "the other format's parts not counted"
# The parts are no rows in CSV or JSON: 56 ebs rows and the loss.
"$kpmc" -R "$out/stacks.bin" --csv >"$out/stacks.csv" 2>/dev/null
[ "$(grep -c ',ebs,' "$out/stacks.csv")" = 56 ] && [ "$(wc -l <"$out/stacks.csv")" = 58 ] ||
	fail "CSV of the stack stream: $(grep -c ',ebs,' "$out/stacks.csv") ebs rows of $(wc -l <"$out/stacks.csv") lines, not 56 of 58"

# ---- kpmc report: the trace as a recording writes it ----
bid=$(readelf -n "$out/callchain" | sed -n 's/^ *Build ID: //p')
seg=$(readelf -lW "$out/callchain" | awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
read -r off vaddr memsz <<<"$seg"
start=$((vaddr & ~0xfff)) end=$(((vaddr + memsz + 0xfff) & ~0xfff))
maps() {	# PATH BUILD-ID: the map line of callchain's code
	printf 'map 300 0x%x-0x%x 0x%x %s %s\n' $start $end $((off & ~0xfff)) "$2" "$1"
}
ksyms='ksym 0xffffffff81000000 0xffffffff81000100 entry_SYSCALL_64
ksym 0xffffffff81001000 0xffffffff81001080 __x64_sys_getppid'
cd "$out" || exit 1
{ maps "$out/callchain" "$bid"; echo "$ksyms"; cat replay.txt; } >trace.txt
cat >expect.report <<'EOF'
# kpmc report of trace.txt: 52 samples with a call stack, 1 with no frame, 2 given up (parts missing or malformed), 3 records lost
# total: samples in the function or its callees; self: samples in the function itself
    total  %total      self   %self  mode function                                 object
       51  98.08%        10  19.23%  [.]  b                                        callchain
       51  98.08%         0   0.00%  [.]  a                                        callchain
       51  98.08%         0   0.00%  [.]  main                                     callchain
       41  78.85%        31  59.62%  [.]  c                                        callchain
       10  19.23%        10  19.23%  [k]  __x64_sys_getppid                        kernel
       10  19.23%         0   0.00%  [k]  entry_SYSCALL_64                         kernel
        1   1.92%         1   1.92%  [.]  [unknown]                                ?
EOF
deep="main;a;b"
for i in $(seq 28); do deep="$deep;c"; done
printf '%s\n' "[unknown] 1" "main;a;b 10" "main;a;b;c 30" "$deep 1" \
	"main;a;b;c;entry_SYSCALL_64_[k];__x64_sys_getppid_[k] 10" >expect.folded
"$kpmc" report trace.txt >report.txt 2>report.err || fail "kpmc report exited $?: $(cat report.err)"
diff -u expect.report report.txt >report.diff || fail "report table differs: $(head -n 20 report.diff | tr '\n' '|')"
"$kpmc" report --folded trace.txt >folded.txt 2>>report.err || fail "kpmc report --folded exited $?"
diff -u expect.folded folded.txt >folded.diff || fail "folded stacks differ: $(head -n 20 folded.diff | tr '\n' '|')"
[ -s report.err ] && fail "report said something on stderr: $(head -n 3 report.err | tr '\n' '|')"
"$kpmc" report -n 2 trace.txt | tail -n +4 | awk '{ print $6 }' | tr '\n' ' ' | grep -qx 'b a ' || fail "-n 2 does not keep b and a"

# By build-id under --symfs, the recorded path gone; a file of another build-id refused.
mkdir -p "symfs/.build-id/${bid:0:2}"
cp callchain "symfs/.build-id/${bid:0:2}/${bid:2}"
{ maps /nonexistent/bin/callchain "$bid"; echo "$ksyms"; cat replay.txt; } >trace-moved.txt
"$kpmc" report --folded --symfs symfs trace-moved.txt >folded-symfs.txt 2>symfs.err || fail "--symfs run exited $?"
cmp -s expect.folded folded-symfs.txt || fail "--symfs by build-id: $(head -n 3 folded-symfs.txt | tr '\n' '|') $(cat symfs.err)"
{ maps "$out/callchain" 0123456789abcdef0123456789abcdef01234567; echo "$ksyms"; cat replay.txt; } >trace-other.txt
"$kpmc" report --folded trace-other.txt >folded-other.txt 2>other.err
grep -qx "main;a;b;c 30" folded-other.txt && fail "a binary of another build-id was used"
grep -qx "\[callchain\];\[callchain\];\[callchain\];\[callchain\] 30" folded-other.txt ||
	fail "frames of a binary not found are not [callchain]: $(head -n 3 folded-other.txt | tr '\n' '|')"
grep -q "has build-id $bid, the trace's $out/callchain had 0123456789abcdef0123456789abcdef01234567: not used" other.err ||
	fail "no word of the build-id mismatch: $(head -n 2 other.err | tr '\n' '|')"
# Strict: a bad address is refused with its line and token.
sed 's/^\(      1     300     300   stack u=0x\)/\1zz/' trace.txt >trace-bad.txt
"$kpmc" report trace-bad.txt >/dev/null 2>bad.err
rc=$?
badline=$(grep -n '^      1     300     300   stack' trace-bad.txt | cut -d: -f1)
[ $rc = 2 ] && grep -qx "kpmc: report: trace-bad.txt:$badline: not a hexadecimal address: '0xzz${leaf#0x}'" bad.err ||
	fail "a bad stack line: exit $rc, '$(cat bad.err)'"

# ---- kpmc-flame: the folded stacks as SVG ----
if "$flame" --title "callchain (host test)" -o flame.svg folded.txt 2>flame.err; then
	why=$(python3 "$top/tests/host/check_flame_svg.py" flame.svg folded.txt main a b c c 'entry_SYSCALL_64_[k]' \
		'__x64_sys_getppid_[k]' '[unknown]') || fail "flame.svg: $why"
else
	fail "kpmc-flame failed: $(cat flame.err)"
fi
printf 'main;a;b 3\nmain;;b 2\n' >bad.folded
"$flame" bad.folded >/dev/null 2>flame-bad.err
rc=$?
[ $rc = 2 ] && grep -qx "kpmc-flame: bad.folded:2: frame '' is empty or has a blank" flame-bad.err ||
	fail "kpmc-flame on a bad line: exit $rc, '$(cat flame-bad.err)'"

if [ ${#fails[@]} -eq 0 ]; then
	echo "stacks: PASS (53 stacks replayed, report and folded exact, --symfs by build-id, mismatch refused; flame: ${why:-})"
	exit 0
fi
printf 'stacks: FAIL %s\n' "${fails[@]}"
exit 1
