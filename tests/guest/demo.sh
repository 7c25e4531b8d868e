#!/bin/sh
# make demo: monitor a two-thread workload with kpmc and print its trace.
insmod /kpmc.ko || exit 1
echo
echo "== /proc/kpmc/info"
cat /proc/kpmc/info
echo
echo "== kpmc -c pmc0,pmc1=0x8 -T 0.01 -- loop -t 20000000 40000000"
echo "   (pmc0: cycles, pmc1: INST_RETIRED; user mode; one sample per 10 ms of a thread's CPU time)"
kpmc -c pmc0,pmc1=0x8 -T 0.01 -- /tests/bin/loop -t 20000000 40000000
echo
echo "== the same run aggregated per thread (kpmc -A): each loop thread retires 2 instructions per iteration"
kpmc -A -c pmc0,pmc1=0x8 -- /tests/bin/loop -t 20000000 40000000
rmmod kpmc
