#!/usr/bin/env bash
# kpmc's command table: built-in commands run in kpmc, the others as the
# program kpmc-WORD next to kpmc (then on PATH), with the arguments that
# follow; a separately built command that is missing says
# how to build it; a word that is no command, or could be a path, is refused
# with exit 2 and says where a program to count goes.
#   tests/host/commands.sh KPMC
set -uo pipefail
kpmc=${1:?usage: commands.sh KPMC}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$kpmc" "$dir/kpmc"
printf '#!/bin/sh\necho "$0 $*"\n' >"$dir/kpmc-hello"
chmod +x "$dir/kpmc-hello"
# A word with a path in it would reach this one, were it not refused.
mkdir "$dir/kpmc-.."
cp "$dir/kpmc-hello" "$dir/kpmc-../kpmc-hello"
bad=""
out=$(PATH=/usr/bin:/bin "$dir/kpmc" hello a 'b c' 2>&1)
[ "$out" = "$dir/kpmc-hello a b c" ] || bad="$bad kpmc hello ran '$out', want the kpmc-hello next to kpmc with a, b c;"
out=$(PATH=/usr/bin:/bin "$dir/kpmc" report -h 2>&1)
case $out in "usage: kpmc report "*) ;; *) bad="$bad kpmc report -h: '$(printf '%s' "$out" | head -n 1)';" ;; esac
out=$(PATH=/usr/bin:/bin "$dir/kpmc" fold -h 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "kpmc: fold: cannot run kpmc-fold (No such file or directory); it is built for the host (make -C userland fold, with GSL)" ] ||
	bad="$bad kpmc fold without kpmc-fold: exit $rc '$out';"
for w in nosuch ../kpmc-hello; do
	out=$(PATH=/usr/bin:/bin "$dir/kpmc" "$w" 2>&1); rc=$?
	[ $rc = 2 ] && [ "$out" = "kpmc: '$w' is not a kpmc command (report, plot, mem, fold, top, flame, or a kpmc-WORD program); a program to count goes after --: kpmc -c CONFIG -- PROG" ] ||
		bad="$bad kpmc $w: exit $rc '$out';"
done
if [ -n "$bad" ]; then
	echo "commands: FAIL$bad"
	exit 1
fi
echo "commands: PASS kpmc-WORD run with its arguments, report built in, fold's build said, 2 words refused"
