#!/usr/bin/env bash
# The module's life is in one place: every part's set-up and tear-down
# declared in the core's headers (kernel/types.h, each layer's
# kernel/layer_*.h, and the plug-ins' faces in kernel/include/kpmc:
# kpmc_*_init, kpmc_*_exit) is called from kernel/module.c only, so the
# order of start and stop reads in one file.
# Names that end so without being a part's life: a hook (kpmc_hook_exit: a
# task's exit) and a value's (kpmc_rand_init: a seed).
#   tests/host/lifecycle_from_module.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
names=$(ls kernel/types.h kernel/layer_*.h kernel/include/kpmc/*.h | xargs grep -ho '\bkpmc_[a-z0-9_]*_\(init\|exit\)\b' |
	sort -u | grep -vx 'kpmc_hook_exit\|kpmc_rand_init')
[ -n "$names" ] || { echo "lifecycle_from_module: FAIL no set-up functions found in kernel/types.h, kernel/layer_*.h, kernel/include/kpmc"; exit 1; }
bad=""
for n in $names; do
	# Calls: the name then "(", not at a definition (a type before it) nor in a comment.
	hits=$(grep -rnE "\\b$n\\(" kernel backends formats modules --include='*.c' |
		grep -v '^kernel/module.c:' |
		grep -vE ":[0-9]+:(int|void|static|struct [a-z_]+ \\*)[^=]*\\b$n\\(" |
		grep -vE ":[0-9]+:[[:space:]]*(\\*|/\\*)")
	[ -z "$hits" ] || bad="$bad$hits"$'\n'
done
if [ -n "$bad" ]; then
	echo "lifecycle_from_module: FAIL set-up or tear-down called outside kernel/module.c:"
	printf '%s' "$bad" | sed 's/^/    /'
	exit 1
fi
echo "lifecycle_from_module: PASS $(echo $names | wc -w) set-up and tear-down functions, called from kernel/module.c only"
