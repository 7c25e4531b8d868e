#!/usr/bin/env bash
# Cost curves of a kpmc bench run as pictures (gnuplot, SVG): what each tool
# adds per context switch against the counters per thread and against the
# monitored threads alive, and per sample against the sampling period and
# against the CPUs feeding one session;
# kpmc and perf on the same axes wherever the run measured both.
#   bench/plot.sh DATADIR
# DATADIR holds the data files bench/report.awk writes with -v plots=DATADIR
# (the same figures as its tables); the SVGs are written beside them:
# cost_vs_counters.svg, cost_vs_threads.svg, cost_vs_period.svg,
# cost_vs_cpus.svg. A data file
# missing (a subset run) means no picture of it. Exit status 1 when gnuplot
# fails on one.
set -uo pipefail
dir=${1:?usage: bench/plot.sh DATADIR}
command -v gnuplot >/dev/null || { echo "plot: gnuplot is not installed" >&2; exit 1; }
rc=0
# draw NAME DATA TITLE XLABEL LOGX PLOT: one picture from one data file.
draw() {
	local name=$1 data=$2 title=$3 xlabel=$4 logx=$5 plot=$6
	[ -s "$dir/$data" ] || return 0
	if ! gnuplot 2>"$dir/$name.err" <<EOF; then
set terminal svg size 640,420 dynamic font "sans,12"
set output "$dir/$name.svg"
set title "$title"
set xlabel "$xlabel"
set ylabel "guest ns added (1 ns = 1 instruction)"
set key top left
set grid
set datafile missing "NaN"
set yrange [0:*]
$([ "$logx" = log ] && printf 'set logscale x 10\nset format x "10^{%%L}"')
plot $plot
EOF
		echo "plot: gnuplot failed on $name: $(tail -n 3 "$dir/$name.err")" >&2
		rc=1
		return
	fi
	rm -f "$dir/$name.err"
	echo "plot: $dir/$name.svg"
}
draw cost_vs_counters switch_counters.dat "Added cost per context switch" \
	"counters per thread" lin \
	"'$dir/switch_counters.dat' using 1:2 with linespoints title 'perf', '' using 1:3 with linespoints title 'kpmc'"
draw cost_vs_threads switch_alive.dat "Added cost per context switch, 2 counters" \
	"monitored threads of the process alive" log \
	"'$dir/switch_alive.dat' using 1:2 with linespoints title 'perf', '' using 1:3 with linespoints title 'kpmc'"
draw cost_vs_period sample_period.dat "Added cost per sample (event-based, cycles)" \
	"sampling period (cycles)" log \
	"'$dir/sample_period.dat' using 1:2 with linespoints title 'perf', '' using 1:3 with linespoints title 'kpmc'"
draw cost_vs_cpus sample_cpus.dat "Added cost per sample, every 10,000 cycles, one session" \
	"CPUs sampling at once" lin \
	"'$dir/sample_cpus.dat' using 1:2 with linespoints title 'perf (a ring per thread)', '' using 1:3 with linespoints title 'kpmc (one session)'"
exit $rc
