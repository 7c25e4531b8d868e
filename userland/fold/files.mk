# fold/: BSC-style folding (GSL): the library libkpmcfold (fold.c,
# foldtrace.c; fold.h and foldtrace.h installed as <kpmc/...>) and the
# kpmc-fold program (foldcmd.c, with metrics/ for --model).
FOLD_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
FOLDLIB_SRCS := $(addprefix $(FOLD_DIR),fold.c foldtrace.c)
FOLD_SRCS := $(FOLD_DIR)foldcmd.c $(FOLDLIB_SRCS)
FOLD_HDRS := $(wildcard $(FOLD_DIR)*.h)
