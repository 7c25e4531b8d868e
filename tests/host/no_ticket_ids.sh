#!/usr/bin/env bash
# Comments say why, in words: fail if a source, script or test cites a
# review item or an issue by its number ("review C18", "issue 18") instead
# of keeping the reasoning. Ids go stale; the reason does not.
#   tests/host/no_ticket_ids.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
pattern='\b[Rr]eview[ :]+[A-C][0-9]{1,2}\b|\b[Ii]ssue #?[0-9]+\b|\([A-C][0-9]{1,2}(, [A-C][0-9]{1,2})*\)'
hits=$(grep -rnIE "$pattern" --include='*.c' --include='*.h' --include='*.sh' --include='*.py' \
	--include='Makefile' --include='Kbuild' --include='*.mk' \
	kernel backends formats modules userland pmda tests scripts include bench debian Makefile 2>/dev/null |
	grep -v '^tests/host/no_ticket_ids.sh:')
if [ -n "$hits" ]; then
	echo "no_ticket_ids: FAIL comments cite review or issue ids instead of the reason:"
	echo "$hits" | sed 's/^/    /'
	exit 1
fi
echo "no_ticket_ids: PASS no review or issue ids in sources, scripts and tests"
