#!/usr/bin/env bash
# Host tests of the CLI's output forms: a generated record stream, formatted
# by kpmc -R as table, CSV and JSON, checked by check_outputs.py; kpmc-top
# showing the same stream in tmux; the man pages against the usage texts;
# kpmc's command table (commands.sh);
# libkpmc's exports and links; call stacks (stacks.sh); folding (fold.sh) and
# the fold library (foldlib.sh); kernel-version checks only in compat.h
# (compat_only.sh); comments without review or issue ids (no_ticket_ids.sh);
# set-up and tear-down called from kernel/module.c only
# (lifecycle_from_module.sh); the core's layers and call cycles (kernel_cycles.py);
# plug-ins and the core meeting only at faces and registries (plugin_faces.py);
# userland/'s folders calling one way (userland_folders.sh); kernel-doc of
# the interfaces built on from outside the core (kerneldoc.sh); make bench's
# pictures against its tables (bench_plots.sh).
#   tests/host/run.sh KPMC OUTDIR  -> OUTDIR/result "PASSED FAILED"
set -uo pipefail
kpmc=${1:?usage: run.sh KPMC OUTDIR}
out=${2:?}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
rm -f "$out/result" "$out/failures"
gcc -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -o "$out/gen_records" "$top/tests/host/gen_records.c" || {
	echo gen_records >"$out/failures"; echo "0 1" >"$out/result"; exit 1; }
"$out/gen_records" >"$out/records.bin"
"$kpmc" -R "$out/records.bin" --csv >"$out/records.csv" &&
	"$kpmc" -R "$out/records.bin" --csv -A >"$out/totals.csv" &&
	"$kpmc" -R "$out/records.bin" --json >"$out/records.jsonl" &&
	"$kpmc" -R "$out/records.bin" -A >"$out/table.txt"
rc=$?
passed=0 failed=0
failures=()
# verdict NAME STATUS: count a check; a failed one's name goes to
# OUTDIR/failures, which make test's closing summary prints.
verdict() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$1")
	fi
}
# run NAME CMD...: a checker that prints its own verdict line.
run() {
	local name=$1
	shift
	"$@"
	verdict "$name" $?
}
if [ $rc -eq 0 ] && python3 "$top/tests/host/check_outputs.py" "$out"; then
	verdict outputs 0
else
	echo "kpmc -R exited $rc or the outputs disagree"
	verdict outputs 1
fi
run top "$top/tests/host/top.sh" "$(dirname "$kpmc")/kpmc-top" "$out/records.bin" "$out"
# The man pages cover every CLI option and libkpmc function.
run man "$top/tests/host/man.sh" "$kpmc" "$(dirname "$kpmc")/kpmc-top"
# libkpmc's exports, soname and pkg-config links.
run libkpmc_lib "$top/tests/host/libkpmc_lib.sh" "$(dirname "$kpmc")" "$out"
# Call stacks without a kernel: reassembly, kpmc report, kpmc-flame.
run stacks "$top/tests/host/stacks.sh" "$kpmc" "$out/stacks"
# Metrics (-m, -g) over the same records, and kpmc plot of them.
run metrics "$top/tests/host/metrics.sh" "$kpmc" "$out/records.bin" "$out/metrics"
# Folding: kpmc fold (kpmc-fold, GSL, gnuplot) on a trace of known truth.
run fold "$top/tests/host/fold.sh" "$kpmc" "$out/fold"
# The same folding as a library call: libkpmcfold's exports, and its result equal to kpmc fold's.
run foldlib "$top/tests/host/foldlib.sh" "$kpmc" "$out/foldlib"
# kpmc's command table: built-in commands, kpmc-WORD programs, refusals.
run commands "$top/tests/host/commands.sh" "$kpmc"
# Kernel-version checks live only in kpmc/compat.h.
run compat_only "$top/tests/host/compat_only.sh"
# Comments keep the reasoning, not review or issue ids.
run no_ticket_ids "$top/tests/host/no_ticket_ids.sh"
# Every part's set-up and tear-down is called from kernel/module.c only.
run lifecycle_from_module "$top/tests/host/lifecycle_from_module.sh"
# make bench's pictures, from the newest full bench run kept in bench/results/.
# The PAPI component as built for this host (make papi-host, both builds),
# on a fake /proc/kpmc; a missing build fails here (the script alone skips).
papi_component() {
	[ -x "$1/bin/papi_component_avail" ] || { echo "papi_component: FAIL no PAPI build in $1 (make papi-host)"; return 1; }
	"$top/tests/host/papi_component.sh" "$1"
}
build=$(dirname "$(dirname "$kpmc")")
run papi_component papi_component "$build/papi"
run papi_component_cpu_kpmc papi_component "$build/papi-cpu-kpmc"
run bench_plots "$top/tests/host/bench_plots.sh" "$(ls "$top"/bench/results/*-full.txt | tail -n 1)" "$out/bench_plots"
# check NAME CMD...: a checker whose last line is its verdict; the whole
# report when it fails.
check() {
	local name=$1
	shift
	if "$@" >"$out/$name.txt"; then
		tail -n 1 "$out/$name.txt"
		verdict "$name" 0
	else
		cat "$out/$name.txt"
		verdict "$name" 1
	fi
}
# planted NAME WHAT CMD... (PATTERN lines on stdin): the checker, run on a
# copy with breaches planted, must fail and name each one.
planted() {
	local name=$1 what=$2 pattern
	shift 2
	if "$@" >"$out/$name.txt"; then
		cat "$out/$name.txt"
		echo "$name: FAIL $what: not seen"
		verdict "$name" 1
		return
	fi
	while IFS= read -r pattern; do
		grep -q -- "$pattern" "$out/$name.txt" && continue
		cat "$out/$name.txt"
		echo "$name: FAIL $what: not named ($pattern)"
		verdict "$name" 1
		return
	done
	echo "$name: PASS $what: each named"
	verdict "$name" 0
}
copy=$(mktemp -d)
mkdir -p "$copy/tests"
cp -r "$top"/kernel "$top"/backends "$top"/formats "$top"/modules "$top"/policies "$copy/"
cp -r "$top/tests/kmod" "$copy/tests/"
# The core's files form layers that only call down, with no call cycle
# (tests/host/kernel_layers.txt); a session (objects) calling up into the
# thread life, as its close once did, is both a tie up and a cycle.
check kernel_cycles python3 "$top/tests/host/kernel_cycles.py" --layers "$top/tests/host/kernel_layers.txt"
cp -r "$copy/kernel" "$copy/kernel-up"
printf '\nvoid kpmc_planted_close(struct kpmc_session *s)\n{\n\tkpmc_threads_session_closed(s);\n}\n' \
	>>"$copy/kernel-up/session.c"
printf '#include "layer_life.h"\n' >>"$copy/kernel-up/record.c"
planted kernel_cycles_planted "a call from session.c up into lifecycle.c, record.c including its header" \
	python3 "$top/tests/host/kernel_cycles.py" --layers "$top/tests/host/kernel_layers.txt" "$copy/kernel-up" <<'EOF'
not down the layers: session.c (objects) -> lifecycle.c (life): kpmc_threads_session_closed
not down the layers: record.c:[0-9]* (objects) includes "layer_life.h" (life, above)
^cycle of 
EOF
# Plug-ins and the core meet at the faces (kernel/include/kpmc) and the
# registries only; planted: a format including the core's private header,
# a face including it, the PMU layer naming a format's own function.
check plugin_faces python3 "$top/tests/host/plugin_faces.py"
printf '#include "../kernel/types.h"\n' >>"$copy/formats/mem.c"
printf '#include "../../types.h"\n' >>"$copy/kernel/include/kpmc/counter.h"
printf '\nvoid kpmc_planted(void)\n{\n\tkpmc_format_mem_init();\n}\n' >>"$copy/kernel/pmu.c"
planted plugin_faces_planted "three breaches of the faces" python3 "$top/tests/host/plugin_faces.py" "$copy" <<'EOF'
includes: formats/mem.c:[0-9]*: includes "../kernel/types.h"
faces: kernel/include/kpmc/counter.h:[0-9]*: a face includes "../../types.h"
registries: kernel/pmu.c names kpmc_format_mem_init (formats/mem.c)
EOF
# userland/'s folders call one way (common/ self-contained, cli/ included
# by no other); planted: common/ including a metrics header, libkpmc the CLI's.
check userland_folders "$top/tests/host/userland_folders.sh"
mkdir -p "$copy/u"
cp -r "$top/userland" "$top/pmda" "$copy/u/"
mkdir -p "$copy/u/bench" && cp -r "$top/bench/progs" "$copy/u/bench/"
printf '#include "metrics/metricexpr.h"\n' >>"$copy/u/userland/common/eventspec.c"
printf '#include "cli/options.h"\n' >>"$copy/u/userland/libkpmc/attrib.c"
planted userland_folders_planted "two breaches of the folders" "$top/tests/host/userland_folders.sh" "$copy/u" <<'EOF'
common includes another folder: userland/common/eventspec.c:[0-9]*:#include "metrics/metricexpr.h"
includes the CLI: userland/libkpmc/attrib.c:[0-9]*:#include "cli/options.h"
EOF
# kernel-doc of libkpmc's header, the plug-ins' faces and the in-kernel
# metric API (kerneldoc.sh); planted: a function's @param line gone.
check kerneldoc "$top/tests/host/kerneldoc.sh"
mkdir -p "$copy/kd/userland/libkpmc/include" "$copy/kd/kernel/include/kpmc"
cp "$top/userland/libkpmc/include/kpmc.h" "$copy/kd/userland/libkpmc/include/"
cp "$top/kernel/layer_interfaces.h" "$copy/kd/kernel/"
cp "$top"/kernel/include/kpmc/{format,backend,monmod,cgroup_count}.h "$copy/kd/kernel/include/kpmc/"
sed -i '/^ \* @fn: called for each sample$/d' "$copy/kd/userland/libkpmc/include/kpmc.h"
planted kerneldoc_planted "a @param line removed" "$top/tests/host/kerneldoc.sh" "$copy/kd" <<'EOF'
kpmc\.h:[0-9]*: warning: Function parameter or .*member 'fn' not described in 'kpmc_region_samples'
EOF
rm -rf "$copy"
printf '%s\n' "${failures[@]}" | sed '/^$/d' >"$out/failures"
echo "$passed $failed" >"$out/result"
[ $failed -eq 0 ]
