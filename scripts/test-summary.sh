#!/usr/bin/env bash
# Sum "PASSED FAILED" result files into the closing line of make test.
#   scripts/test-summary.sh RESULT...
# A missing result file (a stage that did not run to its end) is one failure.
set -uo pipefail
passed=0
failed=0
for f in "$@"; do
	if [ -r "$f" ] && read -r p q <"$f"; then
		passed=$((passed + p))
		failed=$((failed + q))
	else
		echo "summary: no result in $f (that stage did not finish)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
