# cli/: the kpmc command: main dispatching, options, a run, replay, kpmc mem,
# kpmc plot, the command table.
CLI_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
CLI_SRCS := $(wildcard $(CLI_DIR)*.c)
CLI_HDRS := $(wildcard $(CLI_DIR)*.h)
KPMC_PURE_SRCS += $(CLI_DIR)options.c
