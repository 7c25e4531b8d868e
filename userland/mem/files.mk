# mem/: kpmc mem's reports (symbols and lines through libdw) and its
# topology view (hwloc).
MEM_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
MEM_SRCS := $(wildcard $(MEM_DIR)*.c)
MEM_HDRS := $(wildcard $(MEM_DIR)*.h)
