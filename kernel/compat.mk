# Features of the target kernel that its version does not tell (distributions
# backport them), found in its headers; kpmc/compat.h decides on them. Included
# by kpmc.ko's Kbuild and by the Kbuild of the modules built against it
# (scripts/build-module.sh), whose code includes kpmc/compat.h as well.
# struct syscore (callbacks with a context pointer): 6.19, and Debian's 6.12.117.
ifneq ($(shell grep -qs 'struct syscore {' $(srctree)/include/linux/syscore_ops.h && echo y),)
ccflags-y += -DKPMC_HAVE_STRUCT_SYSCORE
endif

# Debian's perf_event_paranoid = 3 (no perf events at all without
# CAP_SYS_ADMIN): its kernels have perf_paranoid_any(); upstream treats 3 as 2.
ifneq ($(shell grep -qs 'perf_paranoid_any' $(srctree)/include/linux/perf_event.h && echo y),)
ccflags-y += -DKPMC_HAVE_PERF_PARANOID_ANY
endif

# 7.x: dumpability lives in the task's exec state (not exported to modules).
ifneq ($(shell grep -qs 'task_exec_state_get_dumpable' $(srctree)/include/linux/sched/coredump.h && echo y),)
ccflags-y += -DKPMC_HAVE_TASK_EXEC_STATE
endif

# task_work_add(TWAF_NO_ALLOC): 6.12 (KASAN's record of the caller's stack must
# not allocate in a hard IRQ on PREEMPT_RT); 7.x never allocates, no flag.
ifneq ($(shell grep -qs 'TWAF_NO_ALLOC' $(srctree)/include/linux/task_work.h && echo y),)
ccflags-y += -DKPMC_HAVE_TWAF_NO_ALLOC
endif
