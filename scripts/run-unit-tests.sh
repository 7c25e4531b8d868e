#!/usr/bin/env bash
# Run every unit-test binary in DIR, print their output, and write DIR/result
# ("PASSED FAILED") from cmocka's summaries. A binary that crashes or prints
# no summary counts as one failure. DIR/failures names the failed tests
# (binary: test), for make test's closing summary.
set -uo pipefail
dir=${1:?usage: run-unit-tests.sh DIR}
passed=0
failed=0
: >"$dir/failures"
for t in "$dir"/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	echo "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' <<<"$out" | tail -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' <<<"$out" | tail -n1)
	if [ -z "$p" ] && [ -z "$f" ]; then
		echo "unit: $(basename "$t") printed no cmocka summary (rc=$rc)"
		echo "$(basename "$t"): no cmocka summary (rc=$rc)" >>"$dir/failures"
		failed=$((failed + 1))
		continue
	fi
	sed -n "s/^\[  FAILED  \] \([A-Za-z_][A-Za-z0-9_]*\)\$/$(basename "$t"): \1/p" <<<"$out" >>"$dir/failures"
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
		echo "$(basename "$t"): exit status $rc after its summary" >>"$dir/failures"
		failed=$((failed + 1))
	fi
done
echo "$passed $failed" >"$dir/result"
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
