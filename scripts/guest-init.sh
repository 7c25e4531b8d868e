#!/bin/busybox sh
# /init of a kpmc test guest. Runs the test, demo or bench script chosen by
# kpmc.mode= on the kernel command line, prints a done marker and powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# Kernel messages stay in dmesg, off the console the host parses.
echo 1 >/proc/sys/kernel/printk

mode=test
for w in $(cat /proc/cmdline); do
	case $w in kpmc.mode=*) mode=${w#kpmc.mode=} ;; esac
done
arch=$(uname -m)
case $mode in
test) script=/tests/guest/run-all.sh ;;
demo) script=/tests/guest/demo.sh ;;
bench) script=/tests/guest/bench.sh ;;
*) script=/bin/false ;;
esac
sh "$script" "$arch"
rc=$?
# Warnings or oopses printed while tests ran must reach the host's log check.
dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|Call trace|kpmc:.*leak' | sed 's/^/guest-dmesg: /'
echo "KPMC-GUEST-DONE rc=$rc"
if [ "$arch" = x86_64 ]; then
	printf '\020' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
fi
poweroff -f
