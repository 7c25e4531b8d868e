#!/usr/bin/env bash
# kpmc's Debian packages tested as a user installs them, then the module DKMS
# built booted in the guest of the kernel it was built for.
#   scripts/test-packages.sh BUILD       (the .debs: BUILD/deb, from `make deb`)
# For each Debian suite (bookworm, trixie) in a throw-away copy of a cached
# chroot (scripts/distro-chroot.sh): apt-get install of the four .debs with the
# amd64 linux-headers of the suite's kernels (versions from the meta packages
# linux-headers-amd64 of SUITE and SUITE-backports, resolved at run time);
# DKMS must build kpmc.ko for each, the kpmc CLI must run, a program must
# build against libkpmc with pkg-config and run, and apt-get remove --purge
# must leave nothing. Each DKMS-built kpmc.ko then boots in the x86_64 guest of
# its own kernel (linux-image-VER-amd64 of the same suite) with the smoke
# suite (kpmc.tier=smoke). Writes BUILD/packages/result ("PASSED FAILED"),
# prints one line per check and "packages: N passed, M failed".
# KPMC_PKG_KERNELS: which kernels, as CHROOT:META-SUITE words (default:
#   "bookworm:bookworm bookworm:bookworm-backports trixie:trixie trixie:trixie-backports").
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

# ---- inside the chroot copy: install, build, check, remove ----------------
if [ "${1:-}" = --in-chroot ]; then
	debs=$2 out=$3
	shift 3
	metas=("$@")
	export DEBIAN_FRONTEND=noninteractive
	res() { echo "$1 $2${3:+ $3}" >>"$out/checks"; }
	# Downloaded packages are kept in the kpmc cache (bound in by chroot-run.sh).
	arch_dir=$KPMC_CACHE/apt-archives/$(. /etc/os-release && echo "$VERSION_CODENAME")
	mkdir -p "$arch_dir/partial"
	# A throw-away copy: dpkg need not fsync each of the headers' files.
	apt-get() {
		command apt-get -o Dir::Cache::Archives="$arch_dir" -o APT::Sandbox::User=root \
			-o Dpkg::Options::=--force-unsafe-io "$@"
	}
	apt-get update -q >"$out/apt-update.log" 2>&1 || { res FAIL apt-update "apt-get update failed"; exit 0; }
	kvers=()
	for m in "${metas[@]}"; do
		v=$(apt-cache show "linux-headers-amd64:amd64/$m" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 |
			tr ',' '\n' | sed -n 's/^ *linux-headers-\(.*-amd64\)\( .*\)\{0,1\}$/\1/p' | head -n1)
		if [ -z "$v" ]; then res FAIL "resolve-$m" "no linux-headers-amd64 in $m"; continue; fi
		echo "$m $v" >>"$out/kernels"
		kvers+=("$v")
	done
	hdrs=()
	for v in "${kvers[@]}"; do hdrs+=("linux-headers-$v"); done
	# The machine before: gcc and libc6-dev for the pkg-config program;
	# openssl, with which dkms makes its module-signing key (MOK).
	apt-get install -y -q --no-install-recommends gcc libc6-dev openssl >"$out/install-pre.log" 2>&1 ||
		res FAIL install-pre "apt-get install gcc libc6-dev openssl failed"
	s=$(date +%s)
	if apt-get install -y -q --no-install-recommends "$debs"/kpmc-dkms_*_all.deb "$debs"/kpmc_*_amd64.deb \
		"$debs"/libkpmc0_*_amd64.deb "$debs"/libkpmcfold1_*_amd64.deb "$debs"/libkpmc-dev_*_amd64.deb "${hdrs[@]}" \
		>"$out/install.log" 2>&1; then
		res PASS install "$(($(date +%s) - s)) s"
	else
		res FAIL install "apt-get install failed after $(($(date +%s) - s)) s (install.log)"
		dpkg --configure -a >>"$out/install.log" 2>&1
	fi
	dkms status >"$out/dkms-status" 2>&1
	for v in "${kvers[@]}"; do
		mkdir -p "$out/$v"
		# (a failed build's log stays only in build/, the last kernel's)
		log=$(grep -l "for kernel $v " /var/lib/dkms/kpmc/*/"$v"/*/log/make.log /var/lib/dkms/kpmc/*/build/make.log 2>/dev/null | head -n1)
		[ -n "$log" ] && cp "$log" "$out/$v/make.log"
		ko=$(ls /lib/modules/"$v"/updates/dkms/kpmc.ko* 2>/dev/null | head -n1)
		if [ -z "$ko" ]; then
			res FAIL "dkms-$v" "no /lib/modules/$v/updates/dkms/kpmc.ko*: $(grep -m1 -E 'error|Error' "$out/$v/make.log" 2>/dev/null)"
			continue
		fi
		case $ko in
		*.xz) xz -dc "$ko" >"$out/$v/kpmc.ko" ;;
		*.zst) zstd -qdc "$ko" >"$out/$v/kpmc.ko" ;;
		*.gz) gzip -dc "$ko" >"$out/$v/kpmc.ko" ;;
		*) cp "$ko" "$out/$v/kpmc.ko" ;;
		esac
		# make.log's second line is the date the build began; its mtime, the end.
		t=""
		if [ -n "$log" ] && b=$(date -d "$(sed -n 2p "$log")" +%s 2>/dev/null); then
			t=", built in $(($(stat -c %Y "$log") - b)) s"
		fi
		vm=$(modinfo -F vermagic "$out/$v/kpmc.ko" 2>/dev/null | cut -d' ' -f1)
		if [ "$vm" = "$v" ]; then
			sig=$(modinfo -F signer "$out/$v/kpmc.ko" 2>/dev/null | sort -u | head -n1)
			[ -n "$sig" ] && sig="signed by $sig" || sig=unsigned
			res PASS "dkms-$v" "$(basename "$ko")$t, $sig"
		else
			res FAIL "dkms-$v" "vermagic '$vm'"
		fi
	done
	# The CLI as installed (no module here: kpmc -I must say so, not crash).
	kpmc -h >"$out/cli.txt" 2>&1
	hrc=$?
	kpmc -I >>"$out/cli.txt" 2>&1
	irc=$?
	nf=$(ldd /usr/bin/kpmc /usr/bin/kpmc-top /usr/bin/kpmc-flame 2>&1 | grep -c 'not found')
	# The package's man pages (debian/kpmc.manpages: doc/kpmc.1, doc/kpmc-groups.5...).
	nman=0
	for p in $(cat "$top/debian/kpmc.manpages"); do
		p=${p##*/}
		[ -f "/usr/share/man/man${p##*.}/$p.gz" ] || nman=$((nman + 1))
	done
	if [ $hrc -eq 0 ] && grep -qi usage "$out/cli.txt" && [ $irc -ne 0 ] && [ $irc -lt 128 ] &&
		[ "$nf" -eq 0 ] && [ $nman -eq 0 ]; then
		res PASS cli "kpmc -h; kpmc -I without the module: rc $irc, $(grep -v -i usage "$out/cli.txt" | tail -n 1)"
	else
		res FAIL cli "kpmc -h rc $hrc, -I rc $irc, $nf libraries not found, $nman man pages not installed: $(tail -n 2 "$out/cli.txt" | tr '\n' ' ')"
	fi
	# A program built against the installed libkpmc with pkg-config (no
	# /proc/kpmc in a chroot: kpmc_start must say -ENOENT).
	cat >/tmp/libuser.c <<'C'
#include <errno.h>
#include <stdio.h>
#include <kpmc.h>
int main(void)
{
	int err = kpmc_start("pmc0");

	printf("kpmc_start %d\n", err);
	return err == -ENOENT ? 0 : 1;
}
C
	if gcc $(pkg-config --cflags libkpmc) -o /tmp/libuser /tmp/libuser.c $(pkg-config --libs libkpmc) >"$out/pkgconfig.txt" 2>&1 &&
		/tmp/libuser >>"$out/pkgconfig.txt" 2>&1 && ldd /tmp/libuser >>"$out/pkgconfig.txt" 2>&1 && grep -q 'libkpmc.so.0 => /' "$out/pkgconfig.txt" &&
		gcc -static $(pkg-config --cflags libkpmc) -o /tmp/libuser.a /tmp/libuser.c $(pkg-config --static --libs libkpmc) \
			>>"$out/pkgconfig.txt" 2>&1 && /tmp/libuser.a >>"$out/pkgconfig.txt" 2>&1; then
		res PASS pkg-config "libkpmc $(pkg-config --modversion libkpmc): shared and static links run"
	else
		res FAIL pkg-config "$(tail -n 3 "$out/pkgconfig.txt" | tr '\n' ' ')"
	fi
	# The fold library the same way: its header, its pkg-config file, a fold
	# of a small trace (four instances, one sample each, one counter).
	cat >/tmp/folduser.c <<'C'
#include <stdio.h>
#include <kpmc/fold.h>
int main(void)
{
	static const char trace[] = "kpmc-fold 1\ncounter 0 0 instr\n"
		"instance r 1 0 0 1000 100\ninstance r 1 1 0 1000 100\n"
		"instance r 1 2 0 1100 110\ninstance r 1 3 0 900 90\n"
		"sample r 1 0 0 500 50\nsample r 1 1 0 250 25\nsample r 1 2 0 550 55\nsample r 1 3 0 675 67\n";
	struct kpmc_fold_trace *t;
	struct kpmc_fold_result *r;
	struct kpmc_fold_opts o;
	char err[256];
	FILE *f = fmemopen((void *)trace, sizeof(trace) - 1, "r");

	kpmc_fold_opts_init(&o);
	if (!f || kpmc_fold_trace_parse(f, "trace", &t, err, sizeof(err)) ||
	    kpmc_fold(t, NULL, 0, &o, &r, err, sizeof(err))) {
		printf("fold failed: %s\n", err);
		return 1;
	}
	printf("folded %zu instances, %zu samples\n", r->used, r->samples);
	return r->used == 4 && r->samples == 4 ? 0 : 1;
}
C
	if gcc $(pkg-config --cflags libkpmcfold) -o /tmp/folduser /tmp/folduser.c $(pkg-config --libs libkpmcfold) >"$out/pkgconfig-fold.txt" 2>&1 &&
		/tmp/folduser >>"$out/pkgconfig-fold.txt" 2>&1 && ldd /tmp/folduser >>"$out/pkgconfig-fold.txt" 2>&1 &&
		grep -q 'libkpmcfold.so.1 => /' "$out/pkgconfig-fold.txt"; then
		res PASS pkg-config-fold "libkpmcfold $(pkg-config --modversion libkpmcfold): $(head -n 1 "$out/pkgconfig-fold.txt")"
	else
		res FAIL pkg-config-fold "$(tail -n 3 "$out/pkgconfig-fold.txt" | tr '\n' ' ')"
	fi
	# Removal leaves nothing behind.
	apt-get remove --purge -y -q kpmc-dkms kpmc libkpmc0 libkpmcfold1 libkpmc-dev >"$out/remove.log" 2>&1 ||
		res FAIL purge "apt-get remove --purge failed (remove.log)"
	left=$(
		ls -d /usr/src/kpmc-* /var/lib/dkms/kpmc 2>/dev/null
		find /lib/modules /usr/lib/modules -name 'kpmc*.ko*' 2>/dev/null
		dpkg -l 'kpmc*' 'libkpmc*' 2>/dev/null | awk '/^[a-z][a-z] / && $1 != "un" { print "dpkg: " $1 " " $2 }'
		ls /usr/bin/kpmc /usr/bin/kpmc-top /usr/include/kpmc.h /usr/include/kpmc /usr/lib/*/libkpmc* /usr/lib/*/pkgconfig/libkpmc*.pc 2>/dev/null
	)
	if [ -z "$left" ]; then
		res PASS purge "nothing left"
	else
		res FAIL purge "left: $(echo "$left" | tr '\n' ' ')"
	fi
	exit 0
fi

# ---- on the host ------------------------------------------------------------
build=${1:?usage: test-packages.sh BUILD}
mkdir -p "$build"
build=$(cd "$build" && pwd)
work=$build/packages
debs=$build/deb
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
rm -rf "$work"
mkdir -p "$work"
passed=0 failed=0
say() { # VERDICT NAME [DETAIL]
	echo "packages: $1 $2${3:+ ($3)}"
	if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
finish() {
	echo "$passed $failed" >"$work/result"
	echo "packages: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
for p in kpmc-dkms_*_all kpmc_*_amd64 libkpmc0_*_amd64 libkpmc-dev_*_amd64; do
	ls "$debs"/$p.deb >/dev/null 2>&1 || { say FAIL debs "no $debs/$p.deb (make deb)"; finish; }
done
for f in "$build/x86_64/bin/kpmc" "$build/x86_64/progs/yield"; do
	[ -x "$f" ] || { say FAIL stage "no $f (make userland progs)"; finish; }
done

metas=${KPMC_PKG_KERNELS:-bookworm:bookworm bookworm:bookworm-backports trixie:trixie trixie:trixie-backports}
suites=$(for w in $metas; do echo "${w%%:*}"; done | awk '!s[$0]++')
boots=()
for suite in $suites; do
	ms=$(for w in $metas; do [ "${w%%:*}" = "$suite" ] && echo "${w#*:}"; done)
	s=$(date +%s)
	root=$("$top/scripts/distro-chroot.sh" "$suite" dkms pkgconf) || { say FAIL "$suite-chroot" "distro-chroot.sh failed"; continue; }
	echo "packages: $suite chroot $root ready in $(($(date +%s) - s)) s"
	out=$work/$suite
	mkdir -p "$out"
	s=$(date +%s)
	# shellcheck disable=SC2086
	"$top/scripts/chroot-run.sh" --copy "$root" bash "$top/scripts/test-packages.sh" --in-chroot "$debs" "$out" $ms \
		>"$out/chroot.log" 2>&1 || say FAIL "$suite-chroot-run" "rc $? (chroot.log)"
	echo "packages: $suite install, DKMS builds, checks and purge took $(($(date +%s) - s)) s"
	while read -r v name detail; do
		say "$v" "$suite $name" "$detail"
	done <"$out/checks"
	[ -f "$out/kernels" ] && while read -r m v; do
		[ -f "$out/$v/kpmc.ko" ] && boots+=("$suite $m $v")
	done <"$out/kernels"
done

# ---- each DKMS-built kpmc.ko in the guest of its kernel ----------------------
# The guest's image: the one scripts/fetch-kernel.sh extracted if it has this
# kernel, else linux-image-VER-amd64 (7.x: linux-binary-VER) from the archive.
guest_image() { # KVER -> path of its vmlinuz
	local v=$1 d o img want bin
	d=$cache/kernels/amd64/$v
	if [ -f "$d/.kpmc-done" ] && [ -f "$d/.kpmc-image" ]; then cat "$d/.kpmc-image"; return; fi
	d=$cache/pkgtest-kernels/$v
	if [ ! -f "$d/.kpmc-done" ]; then
		o=$("$top/scripts/apt-extra.sh") || return 1
		rm -rf "$d"
		mkdir -p "$d/debs"
		want=("linux-image-$v:amd64")
		# shellcheck disable=SC2086
		bin=$(apt-cache $o show "linux-image-$v:amd64" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 |
			tr ',' '\n' | sed -n 's/^ *\(linux-binary-[^ ]*\).*/\1/p' | head -n1)
		[ -n "$bin" ] && want+=("$bin:amd64")
		# shellcheck disable=SC2086
		(cd "$d/debs" && apt-get $o download -q "${want[@]}") >"$d.log" 2>&1 || { cat "$d.log" >&2; return 1; }
		for p in "$d"/debs/*.deb; do dpkg-deb -x "$p" "$d"; done
		rm -rf "$d/debs"
		touch "$d/.kpmc-done"
	fi
	img=$(ls "$d/boot/vmlinuz-$v" "$d/usr/lib/modules/$v/vmlinuz" 2>/dev/null | head -n1)
	[ -n "$img" ] && echo "$img"
}
for b in "${boots[@]}"; do
	read -r suite m v <<<"$b"
	out=$work/$suite/$v
	img=$(guest_image "$v") || img=""
	if [ -z "$img" ]; then
		say FAIL "$suite $v smoke" "no guest image linux-image-$v"
		continue
	fi
	r=$out/root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/tests/bin" "$r/tests/guest"
	cp "$out/kpmc.ko" "$r/kpmc.ko"
	cp "$build/x86_64/bin/kpmc" "$r/bin/"
	"$top/scripts/guest-libs.sh" x86_64 "$r" "$r/bin/kpmc"
	cp "$build/x86_64/progs/"* "$r/tests/bin/"
	cp "$top"/tests/guest/*.sh "$r/tests/guest/"
	s=$(date +%s)
	KPMC_KERNEL=$img KPMC_GUEST_APPEND="kpmc.tier=smoke ${KPMC_GUEST_APPEND:-}" \
		"$top/scripts/run-guest-tests.sh" x86_64 "$r" "$out/run" >"$out/smoke.log" 2>&1
	t=$(($(date +%s) - s))
	sed 's/^/    /' "$out/smoke.log" | grep -E 'x86_64: (PASS|FAIL|[0-9]+ passed)'
	read -r gp gf <"$out/run/result" 2>/dev/null || { gp=0 gf=1; }
	if [ "$gf" -eq 0 ] && [ "$gp" -gt 0 ]; then
		say PASS "$suite $v smoke" "x86_64 guest ($m): $gp passed, 0 failed, boot+suite $t s"
	else
		say FAIL "$suite $v smoke" "x86_64 guest ($m): $gp passed, $gf failed, $t s ($out/smoke.log)"
	fi
done
finish
