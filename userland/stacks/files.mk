# stacks/: call stacks: parts reassembled, trace lines, kernel symbols,
# folding; recording (/proc/PID/maps) and kpmc report; kpmc-flame (cairo),
# a program of its own.
STACKS_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
FLAME_SRCS := $(STACKS_DIR)flame.c
STACKS_SRCS := $(filter-out $(FLAME_SRCS),$(wildcard $(STACKS_DIR)*.c))
STACKS_HDRS := $(wildcard $(STACKS_DIR)*.h)
KPMC_PURE_SRCS += $(addprefix $(STACKS_DIR),stackparts.c stackline.c ksyms.c stackfold.c)
