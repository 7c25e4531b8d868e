#!/usr/bin/env bash
# Boot one guest in test mode and judge its log.
#   scripts/run-guest-tests.sh ARCH STAGEDIR WORKDIR
# Prints each test's verdict, writes WORKDIR/result ("PASSED FAILED"), and
# fails on any failed test, a hang or timeout, or any kernel warning/oops.
set -uo pipefail
arch=${1:?usage: run-guest-tests.sh ARCH STAGEDIR WORKDIR}
stage=${2:?}
work=${3:?}
top=$(cd "$(dirname "$0")/.." && pwd)
# How lines name this run (a kernel tier adds its kernel: "arm64 6.12 (...)").
label=${KPMC_TIER_LABEL:-$arch}
mkdir -p "$work"
rm -f "$work/result"

"$top/scripts/mkinitramfs.sh" "$arch" "$stage" "$work/initrd.cpio.gz" || exit 1
start=$(date +%s)
"$top/scripts/boot-guest.sh" "$arch" "$work/initrd.cpio.gz" "$work/guest.log" test
boot_rc=$?
echo "$label: guest ran $(($(date +%s) - start)) s"

tr -d '\r' <"$work/guest.log" >"$work/guest.clean.log"
log=$work/guest.clean.log
grep -a '^KPMC-TEST: ' "$log" | sed "s/^KPMC-TEST: /$label: /"
# Where the guest's time went (tests/guest/run-all.sh's KPMC-TIME lines).
slow=$(grep -a '^KPMC-TIME ' "$log" | sort -k3 -rn | head -n 6 |
	awk '{ printf "%s%s %s", sep, $2, $3; sep = ", " }')
[ -n "$slow" ] && echo "$label: slowest test files (guest s): $slow"
slow=$(grep -a '^KPMC-TTIME ' "$log" | sort -k4 -rn | head -n 8 |
	awk '{ printf "%s%s %s/%s", sep, $2, $4, $3; sep = ", " }')
[ -n "$slow" ] && echo "$label: busiest tests (busy/all guest s since the verdict before): $slow"
passed=$(grep -ac '^KPMC-TEST: PASS ' "$log")
failed=$(grep -ac '^KPMC-TEST: FAIL ' "$log")

extra=0
# host_verdicts CHECK NAME RES: a host check's "PASS|FAIL CRITERION: why"
# lines (RES) as this run's, each counted; none at all is CHECK's failure.
host_verdicts() {
	local np nf
	np=$(printf '%s\n' "$3" | grep -c '^PASS ')
	nf=$(printf '%s\n' "$3" | grep -c '^FAIL ')
	printf '%s\n' "$3" | grep -E '^(PASS|FAIL) ' | while IFS= read -r l; do
		echo "$label: ${l%%:*} ($2):${l#*:}"
	done
	if [ "$np" -eq 0 ] && [ "$nf" -eq 0 ]; then
		echo "$label: FAIL $1 ($2): no verdict: $(printf '%s\n' "$3" | tail -n 2 | tr '\n' ' ')"
		nf=1
	fi
	passed=$((passed + np))
	extra=$((extra + nf))
}
if [ $boot_rc -ne 0 ]; then
	echo "$label: FAIL guest: no clean end (timeout, hang or panic)"
	extra=$((extra + 1))
fi
bad=$(grep -aE 'BUG:|WARNING:|Oops|general protection|Call trace|kpmc:.*leak' "$log" | grep -v '^guest-dmesg: ' | head -n 20)
bad_dmesg=$(grep -a '^guest-dmesg: ' "$log" | head -n 20)
if [ -n "$bad$bad_dmesg" ]; then
	echo "$label: FAIL kernel log: warnings, oopses or leaks:"
	printf '%s\n%s\n' "$bad" "$bad_dmesg" | sed '/^$/d; s/^/    /'
	extra=$((extra + 1))
fi
# Files a test handed out (lib.sh's artifact: "KPMC-ARTIFACT NAME: line"),
# into WORKDIR/artifacts; heat maps (heat_*.dat, and libkpmc objects from a
# Mitos CSV: heatcsv_*.csv) rendered as PNG next to them, folded call stacks
# (folded_*.txt) drawn as flame graphs (SVG), kpmc mem's JSON reports
# (mem_*.json) checked: a rendering or a check that fails is a failed test.
rm -rf "$work/artifacts"
if grep -aq '^KPMC-ARTIFACT ' "$log"; then
	mkdir -p "$work/artifacts"
	grep -a '^KPMC-ARTIFACT ' "$log" | sed 's/^KPMC-ARTIFACT //' | while IFS= read -r l; do
		name=${l%%: *}
		case $name in */* | .* | "") continue ;; esac
		printf '%s\n' "${l#*: }" >>"$work/artifacts/$name"
	done
	for dat in "$work"/artifacts/heat_*.dat; do
		[ -e "$dat" ] || continue
		if "$top/scripts/heatmap.sh" "$dat" "${dat%.dat}.png" 2>"${dat%.dat}.err"; then
			echo "$label: PASS heatmap_rendered $(basename "${dat%.dat}").png"
			passed=$((passed + 1))
		else
			echo "$label: FAIL heatmap_rendered $(basename "$dat"): $(tail -n 2 "${dat%.dat}.err")"
			extra=$((extra + 1))
		fi
	done
	# Mitos CSVs of libkpmc objects (heatcsv_OBJECT_ROWSxCOLS.csv): OBJECT's heat map.
	for csv in "$work"/artifacts/heatcsv_*.csv; do
		[ -e "$csv" ] || continue
		spec=$(basename "$csv" .csv)
		spec=${spec#heatcsv_}
		png=${csv%.csv}.png
		if "$top/scripts/heatmap.sh" --csv "$csv" "${spec%_*}" "${spec##*_}" "$png" 2>"${csv%.csv}.err"; then
			echo "$label: PASS heatmap_rendered $(basename "$png") (libkpmc object ${spec%_*})"
			passed=$((passed + 1))
		else
			echo "$label: FAIL heatmap_rendered $(basename "$csv"): $(tail -n 2 "${csv%.csv}.err")"
			extra=$((extra + 1))
		fi
	done
	# Folded call stacks (folded_NAME.txt, kpmc report --folded): a flame graph
	# each (flame_NAME.svg, kpmc-flame with cairo), which must parse as SVG and
	# have a box for every frame in 1% of the samples or more.
	flame=${KPMC_FLAME:-$top/build/host/kpmc-flame}
	for fo in "$work"/artifacts/folded_*.txt; do
		[ -e "$fo" ] || continue
		why=""
		name=$(basename "$fo" .txt)
		svg=$work/artifacts/flame_${name#folded_}.svg
		if "$flame" --title "$name ($label)" -o "$svg" "$fo" 2>"${svg%.svg}.err" &&
			why=$(python3 "$top/tests/host/check_flame_svg.py" "$svg" "$fo" 2>&1); then
			echo "$label: PASS flame_rendered $(basename "$svg"): $why"
			passed=$((passed + 1))
		else
			echo "$label: FAIL flame_rendered $(basename "$svg"): ${why:-$(tail -n 2 "${svg%.svg}.err")}"
			extra=$((extra + 1))
		fi
	done
	# kpmc mem --json reports (mem_*.json): JSON, and each view sums to the run's totals.
	for js in "$work"/artifacts/mem_*.json; do
		[ -e "$js" ] || continue
		if why=$(python3 "$top/tests/host/check_mem_json.py" "$js" 2>&1); then
			echo "$label: PASS mem_json_consistent $(basename "$js"): $why"
			passed=$((passed + 1))
		else
			echo "$label: FAIL mem_json_consistent $(basename "$js"): $why"
			extra=$((extra + 1))
		fi
	done
	# Fold traces of one program sampled coarse and fine
	# (foldtrace_NAME_coarse.txt, foldtrace_NAME_fine.txt): kpmc fold's
	# criteria (tests/host/check_fold.sh), a verdict each; its plots and
	# CSVs next to them (fold_NAME_{coarse,fine}.*).
	for co in "$work"/artifacts/foldtrace_*_coarse.txt; do
		[ -e "$co" ] || continue
		name=$(basename "$co" _coarse.txt)
		name=${name#foldtrace_}
		res=$("$top/tests/host/check_fold.sh" "$co" "${co%_coarse.txt}_fine.txt" \
			"$work/artifacts/fold_$name" 2>&1)
		host_verdicts fold_check "$name" "$res"
	done
	# Fold traces of regions from function entry and exit (foldfunc_NAME.txt):
	# tests/host/check_foldfunc.sh's criteria, a verdict each.
	for ff in "$work"/artifacts/foldfunc_*.txt; do
		[ -e "$ff" ] || continue
		name=$(basename "$ff" .txt)
		name=${name#foldfunc_}
		res=$("$top/tests/host/check_foldfunc.sh" "$ff" "$work/artifacts/foldfunc_fold_$name" 2>&1)
		host_verdicts foldfunc_check "$name" "$res"
	done
fi
if [ $((passed + failed)) -eq 0 ]; then
	echo "$label: FAIL guest: no test ran"
	extra=$((extra + 1))
fi
failed=$((failed + extra))
echo "$passed $failed" >"$work/result"
echo "$label: $passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
	echo "---- last 60 lines of the $label guest log ($work/guest.log) ----"
	tail -n 60 "$log"
	exit 1
fi
