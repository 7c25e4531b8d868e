# userland/'s folders, each its own fragment: what it holds (its *.c), what
# of it is pure (I/O-free, also linked into tests/unit: KPMC_PURE_SRCS).
# Paths come out relative to where this file is included from.
KPMC_PURE_SRCS :=
USERLAND_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
include $(addprefix $(USERLAND_DIR),common/files.mk sinks/files.mk cli/files.mk metrics/files.mk stacks/files.mk \
	mem/files.mk fold/files.mk top/files.mk libkpmc/files.mk)
