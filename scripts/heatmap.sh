#!/usr/bin/env bash
# Render a kpmc mem heat map (kpmc mem --heatmap: samples per element of a
# 2-D object, a gnuplot matrix) as PNG with gnuplot.
#   scripts/heatmap.sh MATRIX PNG
set -euo pipefail
dat=${1:?usage: heatmap.sh MATRIX PNG}
png=${2:?}
command -v gnuplot >/dev/null || { echo "heatmap: gnuplot is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
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
