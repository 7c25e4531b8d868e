#!/usr/bin/env bash
# Render a memory-sampling heat map (samples per element of a 2-D object) as
# PNG with gnuplot, from either
#   scripts/heatmap.sh MATRIX PNG
#     a gnuplot matrix (kpmc mem --heatmap), or
#   scripts/heatmap.sh --csv SAMPLES.CSV OBJECT ROWSxCOLS PNG
#     a Mitos samples.csv (libkpmc's kpmc_mem_write_csv, kpmc mem --csv): the
#     samples of OBJECT, a libkpmc object of 2 dimensions, by xidx (row) and
#     yidx (column).
set -euo pipefail
command -v gnuplot >/dev/null || { echo "heatmap: gnuplot is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
if [ "${1:-}" = --csv ]; then
	csv=${2:?usage: heatmap.sh --csv SAMPLES.CSV OBJECT ROWSxCOLS PNG}
	obj=${3:?}
	shape=${4:?}
	png=${5:?}
	rows=${shape%x*}
	cols=${shape#*x}
	case "$rows$cols" in *[!0-9]* | "") echo "heatmap: '$shape' is not ROWSxCOLS" >&2; exit 2 ;; esac
	dat=$(mktemp)
	trap 'rm -f "$dat"' EXIT
	# Columns by name from the header: variable, dims, xidx, yidx.
	awk -F, -v o="$obj" -v R="$rows" -v C="$cols" -v title="$(basename "$csv")" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["variable"] == o {
			if ($col["dims"] != 2) { bad = "object " o " has " $col["dims"] " dimensions, not 2"; exit 1 }
			x = $col["xidx"]; y = $col["yidx"]
			if (x !~ /^[0-9]+$/ || y !~ /^[0-9]+$/ || x >= R || y >= C) { bad = "index " x "," y " outside " R "x" C; exit 1 }
			n[x, y]++; total++
		}
		END {
			if (bad) { print "heatmap: " bad > "/dev/stderr"; exit 1 }
			if (!total) { print "heatmap: no sample of " o " in " title > "/dev/stderr"; exit 1 }
			printf "# kpmc mem heat map: %s in %s, %d samples\n", o, title, total
			for (i = 0; i < R; i++) {
				line = ""
				for (j = 0; j < C; j++) line = line (j ? " " : "") (n[i, j] + 0)
				print line
			}
		}' "$csv" >"$dat"
else
	dat=${1:?usage: heatmap.sh MATRIX PNG | heatmap.sh --csv SAMPLES.CSV OBJECT ROWSxCOLS PNG}
	png=${2:?}
fi
title=$(sed -n '1s/^# kpmc mem heat map: //p' "$dat")
# (awk alone: under pipefail a head(1) closing a pipe early fails the script.)
rows=$(awk '!/^#/ { n++ } END { print n + 0 }' "$dat")
cols=$(awk '!/^#/ { print NF; exit }' "$dat")
gnuplot <<GP
set terminal png size 640,560
set output "$png"
set title "${title//\"/}"
set xlabel "column (inner index)"
set ylabel "row (outer index)"
set xrange [-0.5:$cols - 0.5]
set yrange [$rows - 0.5:-0.5]
set cblabel "samples"
set palette defined (0 "white", 1 "yellow", 2 "orange", 3 "red", 4 "dark-red")
plot "$dat" matrix with image notitle
GP
[ -s "$png" ]
