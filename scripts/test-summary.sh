#!/usr/bin/env bash
# Sum "PASSED FAILED" result files into the closing line of make test.
#   scripts/test-summary.sh RESULT...
# A missing result file (a stage that did not run to its end) is one failure.
# Each result with failures is named, with the test names its runner left in
# a failures file beside it (unit and host tests; the guest stages' failed
# verdicts are listed by scripts/run-stages.sh): CI keeps only the tail.
set -uo pipefail
passed=0
failed=0
for f in "$@"; do
	if [ -r "$f" ] && read -r p q <"$f"; then
		passed=$((passed + p))
		failed=$((failed + q))
		if [ "$q" -gt 0 ]; then
			echo "summary: $q failed in $f"
			[ -r "$(dirname "$f")/failures" ] &&
				awk '!seen[$0]++ { print "summary:   " $0 }' "$(dirname "$f")/failures"
		fi
	else
		echo "summary: no result in $f (that stage did not finish)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
