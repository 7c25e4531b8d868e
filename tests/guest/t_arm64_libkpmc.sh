# arm64: self-monitoring with libkpmc. Two threads, regions "short" (1e6
# iterations) and "long" (3e6): over both threads long - short is exactly
# 2 x 4e6 user instructions, whatever the library's reads cost. Over read()
# of /proc/kpmc/self here; t_arm64_fastread does the same on the fast path.
load
r=""
KPMC_READ_PATH=read "$BIN/regions" >$OUT/regions.txt 2>&1 || r="regions failed: $(cat $OUT/regions.txt);"
cat $OUT/regions.txt
grep -q '^region short calls=2 ' $OUT/regions.txt && grep -q '^region long calls=2 ' $OUT/regions.txt ||
	r="$r regions not measured twice each;"
grep -q '^regions long-short=8000000$' $OUT/regions.txt || r="$r long - short is not exactly 8,000,000;"
grep -q '^regions path fast=0 read=8$' $OUT/regions.txt || r="$r the reads did not all go through read();"
# /proc/kpmc/self answers only a monitored thread.
dd if=/proc/kpmc/self of=/dev/null bs=256 count=1 2>$OUT/self.err && r="$r /proc/kpmc/self read by an unmonitored thread;"
grep -q "No data available" $OUT/self.err || r="$r self: $(cat $OUT/self.err);"
verdict arm64_libkpmc_regions_exact "$r"
rmmod kpmc
