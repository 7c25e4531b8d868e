#!/usr/bin/env bash
# The man pages cover what the programs offer: every option in kpmc's and
# kpmc-top's usage text is described in doc/kpmc.1 (as ".B \-x" or
# ".BI \-x"...), every function declared in libkpmc's header in doc/libkpmc.3.
#   tests/host/man.sh KPMC KPMC_TOP   (exit 0: in sync; else names what is missing)
set -uo pipefail
kpmc=${1:?usage: man.sh KPMC KPMC_TOP}
top_bin=${2:?}
top=$(cd "$(dirname "$0")/../.." && pwd)
missing=""

# Options: the first word of the usage lines that start with a dash.
options() {
	sed -n 's/^ *\(-[A-Za-z]\|--[a-z][a-z-]*\)\([ ,].*\)\{0,1\}$/\1/p'
}
# An option is documented when a tagged paragraph (.TP) starts with it
# (roff writes a dash as \-): ".TP" then ".BI \-o " FILE"".
documented() {
	awk -v opt="$1" '
		{ line = $0; gsub(/\\-/, "-", line) }
		tp && line ~ /^\.B[IR]? / {
			split(line, w, /[ "]+/)
			if (w[2] == opt) found = 1
		}
		{ tp = ($0 == ".TP") }
		END { exit !found }' "$2"
}

opts=$({ "$kpmc" -h; "$top_bin" -h 2>&1; } | options | sort -u)
[ -n "$opts" ] || missing="$missing (no options found in the usage texts)"
for o in $opts; do
	documented "$o" "$top/doc/kpmc.1" || missing="$missing kpmc.1:$o"
done
funcs=$(sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(kpmc_[a-z_]*\)(.*/\1/p' "$top/userland/libkpmc/include/kpmc.h" | sort -u)
[ -n "$funcs" ] || missing="$missing (no functions found in kpmc.h)"
for f in $funcs; do
	grep -q "^\.BR\{0,1\}I\{0,1\} .*\b$f\b" "$top/doc/libkpmc.3" || missing="$missing libkpmc.3:$f"
done
if [ -n "$missing" ]; then
	echo "man pages out of sync with the programs:$missing"
	exit 1
fi
echo "man pages: $(echo $opts | wc -w) options, $(echo $funcs | wc -w) functions documented"
