#!/usr/bin/env bash
# The man pages cover what the programs offer, one page per command: every
# option in a usage text (kpmc -h, kpmc SUB -h for each sub-command it names,
# kpmc-top -h, kpmc-flame -h) is described in its command's page (kpmc ->
# doc/kpmc.1, kpmc SUB -> doc/kpmc-SUB.1, kpmc-X -> doc/kpmc-X.1) as a tagged
# paragraph (".TP" then ".B \-x" or ".BI \-x"...); every function declared in
# libkpmc's header in doc/libkpmc.3; every page that debian/*.manpages lists
# exists, and every page in doc/ is in one of them.
#   tests/host/man.sh KPMC KPMC_TOP   (exit 0: in sync; else names what is missing)
set -uo pipefail
kpmc=${1:?usage: man.sh KPMC KPMC_TOP}
top_bin=${2:?}
top=$(cd "$(dirname "$0")/../.." && pwd)
missing=""

# "COMMAND OPTION" for each option of a usage text: the first word of the
# lines that start with a dash, under the command of the text's "usage:" line
# or of the last "kpmc SUB: ..." heading; and the dashed words of the
# synopsis lines ("usage: kpmc SUB [-x A] [--y|--z]", the lines under it that
# start with "kpmc" or "["), under the command each line names. The command is
# "kpmc" itself, a sub-command (mem) or a companion program (kpmc-top: top).
options() {
	awk '
		function command(s) {
			if (s ~ /^kpmc-[a-z]+/) { sub(/^kpmc-/, "", s); sub(/[^a-z].*/, "", s); return s }
			if (s ~ /^kpmc [a-z]+/) { sub(/^kpmc /, "", s); sub(/[^a-z].*/, "", s); return s }
			return "kpmc"
		}
		/^usage: / { synopsis = 1; line = substr($0, 8); cmd = command(line); section = cmd }
		!/^usage: / {
			line = $0
			if (synopsis && line ~ /^    +(kpmc|\[)/) {
				sub(/^ +/, "", line)
				if (line !~ /^\[/) cmd = command(line)
			} else {
				synopsis = 0
			}
		}
		synopsis {
			s = " " line " "
			while (match(s, /[ [|]--?[A-Za-z][A-Za-z-]*[]| =]/)) {
				print cmd, substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH - 1)
			}
			next
		}
		/^kpmc [a-z]+: / { section = command($0); next }
		/^ *(-[A-Za-z]|--[a-z][a-z-]*)([ ,].*)?$/ {
			o = $0; sub(/^ */, "", o); sub(/[ ,].*/, "", o)
			print section, o
		}'
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

usage=$("$kpmc" -h 2>&1)
# The sub-commands its synopsis names ("kpmc fold [OPTIONS] TRACE": fold).
subs=$(printf '%s\n' "$usage" | sed -n 's/^\(usage:\)\{0,1\} *kpmc \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p' | sort -u)
pairs=$({
	printf '%s\n' "$usage"
	for s in $subs; do "$kpmc" "$s" -h 2>&1; done
	"$top_bin" -h 2>&1
	"$(dirname "$kpmc")/kpmc-flame" -h 2>&1
} | options | sort -u)
[ -n "$pairs" ] || missing="$missing (no options found in the usage texts)"
# usage_of NAME: the command behind a name of the pairs, run with -h: its
# status and first lines (what a failure says).
usage_of() {
	local out rc
	case $1 in
	kpmc) out=$("$kpmc" -h 2>&1) ;;
	top) out=$("$top_bin" -h 2>&1) ;;
	flame) out=$("$(dirname "$kpmc")/kpmc-flame" -h 2>&1) ;;
	*) out=$("$kpmc" "$1" -h 2>&1) ;;
	esac
	rc=$?
	printf 'exit %d: %s' "$rc" "$(printf '%s\n' "$out" | head -n 2 | tr '\n' ' ')"
}
for c in kpmc $subs top flame; do
	printf '%s\n' "$pairs" | grep -q "^$c " ||
		missing="$missing (no options of $c in the usage texts; its -h now: $(usage_of "$c"))"
done
while read -r c o; do
	[ -n "$c" ] || continue
	page=kpmc-$c.1
	[ "$c" = kpmc ] && page=kpmc.1
	if [ ! -f "$top/doc/$page" ]; then
		case " $missing " in *" $page(no page) "*) ;; *) missing="$missing $page(no page)" ;; esac
	else
		documented "$o" "$top/doc/$page" || missing="$missing $page:$o"
	fi
done <<<"$pairs"
funcs=$(sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(kpmc_[a-z_]*\)(.*/\1/p' "$top/userland/libkpmc/include/kpmc.h" | sort -u)
[ -n "$funcs" ] || missing="$missing (no functions found in kpmc.h)"
for f in $funcs; do
	grep -q "^\.BR\{0,1\}I\{0,1\} .*\b$f\b" "$top/doc/libkpmc.3" || missing="$missing libkpmc.3:$f"
done
# The packages' pages: each listed one exists, each one in doc/ is listed.
listed=$(cat "$top"/debian/*.manpages)
for p in $listed; do
	[ -f "$top/$p" ] || missing="$missing $p(listed in debian/*.manpages, not there)"
done
for p in "$top"/doc/*.[1-8]; do
	printf '%s\n' $listed | grep -qx "doc/${p##*/}" || missing="$missing doc/${p##*/}(in no debian/*.manpages)"
done
if [ -n "$missing" ]; then
	echo "man pages out of sync with the programs:$missing"
	exit 1
fi
echo "man pages: $(echo "$pairs" | wc -l) options of $(echo "$pairs" | cut -d' ' -f1 | sort -u | wc -l) commands, $(echo $funcs | wc -w) functions, $(echo $listed | wc -w) packaged pages documented"
