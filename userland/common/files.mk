# common/: what the CLI, kpmc-top, libkpmc and pmdakpmc share: the one
# /proc/kpmc client, records and their text, the mapped ring's reader, event
# names (libpfm4), memory accesses, the ELF symbolizer (libdw), the growable
# array every table uses (growarray.h, header-only).
COMMON_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
COMMON_SRCS := $(wildcard $(COMMON_DIR)*.c)
COMMON_HDRS := $(wildcard $(COMMON_DIR)*.h)
KPMC_PURE_SRCS += $(addprefix $(COMMON_DIR),record_format.c aggregate.c mux_estimate.c eventspec.c memaccess.c)
