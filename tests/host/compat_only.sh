#!/usr/bin/env bash
# Kernel-version differences are decided in one place, kpmc/compat.h: fail if
# any other kernel-side source (the module, its backends and monitoring
# modules, the placement policy, the test module) tests the kernel version.
#   tests/host/compat_only.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
hits=$(grep -rnE 'LINUX_VERSION_CODE|KERNEL_VERSION *\(|LINUX_VERSION_(MAJOR|PATCHLEVEL|SUBLEVEL)|RHEL_RELEASE_CODE' \
	--include='*.c' --include='*.h' kernel backends formats modules tests/kmod include |
	grep -v '^kernel/include/kpmc/compat.h:')
if [ -n "$hits" ]; then
	echo "compat_only: FAIL kernel-version checks outside kernel/include/kpmc/compat.h:"
	echo "$hits" | sed 's/^/    /'
	exit 1
fi
# And compat.h itself is what decides: it must exist and test the version.
grep -q 'LINUX_VERSION_CODE' kernel/include/kpmc/compat.h || {
	echo "compat_only: FAIL kernel/include/kpmc/compat.h is missing or decides nothing"
	exit 1
}
echo "compat_only: PASS kernel-version checks only in kernel/include/kpmc/compat.h"
