# arm64: a thread's /proc/kpmc/self page (the fast read path) is not
# inherited by fork (VM_DONTCOPY). The child is another thread: with its
# parent's page it would read the parent's counts and, with
# KPMC_PAGE_USER_READ, believe it may read the counters itself. The child has
# no such mapping (a read of the old address faults), maps /proc/kpmc/self
# again for a page with its own tid, and the parent's page is unchanged.
# (tests/progs/selffork.c)
load
r=""
"$BIN/selffork" raw >$OUT/selffork.txt 2>&1 || r="selffork failed;"
cat $OUT/selffork.txt
set -- $(sed -n 's/^selffork parent maps=1 tid=\([0-9]*\) page_tid=\([0-9]*\) counting=1$/\1 \2/p' $OUT/selffork.txt)
ptid=$1
[ -n "$ptid" ] && [ "$ptid" = "$2" ] || r="$r the parent's page is not its own, mapped once and counting;"
set -- $(sed -n 's/^selffork child maps=\([0-9]*\) old=\([^ ]*\) own_maps=\([0-9]*\) own_page_tid=\([0-9]*\) tid=\([0-9]*\)$/\1 \2 \3 \4 \5/p' $OUT/selffork.txt)
[ "$1" = 0 ] || r="$r the child has $1 mappings of /proc/kpmc/self after fork (0 expected);"
[ "$2" = fault ] || r="$r the child read its parent's page at the old address ($2, parent tid $ptid);"
[ "$3" = 1 ] && [ -n "$5" ] && [ "$4" = "$5" ] && [ "$5" != "$ptid" ] ||
	r="$r the child's own mapping is not one page with its own tid ($3 maps, page tid $4, tid $5);"
grep -q "^selffork parent_after page_tid=$ptid counting=1\$" $OUT/selffork.txt ||
	r="$r the parent's page changed across the child's life;"
verdict arm64_selfpage_not_inherited_by_fork "$r"

# libkpmc across fork: the child's fast read maps its own page, and
# libkpmc's fork handler leaves the parent's old address alone (it once
# unmapped it, which would now unmap whatever the child put there first).
r=""
"$BIN/selffork" lib >$OUT/selffork_lib.txt 2>&1 || r="selffork lib failed;"
cat $OUT/selffork_lib.txt
grep -q '^selffork lib claimed=1 kept=1 read=0 path=fast$' $OUT/selffork_lib.txt ||
	r="$r the child's fork handler could not map the old address, libkpmc unmapped it, or the child's fast read failed;"
verdict arm64_libkpmc_fork_keeps_child_mappings "$r"
rmmod kpmc
