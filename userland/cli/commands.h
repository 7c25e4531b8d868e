/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpmc's commands: "kpmc WORD ...". A command is built into kpmc (a main of
 * its own file) or is a program of its own, kpmc-WORD (fold, top, flame:
 * built for the host with their libraries), run next to this kpmc or from
 * PATH, as git runs git-WORD; a WORD not in the table is tried that way too.
 * The counting run itself (kpmc [OPTIONS] -- PROG) and kpmc mem, its memory
 * mode, are kpmc.c's main.
 */
#ifndef KPMC_COMMANDS_H
#define KPMC_COMMANDS_H

/* argv[0] is WORD. Returns the command's exit status (2: no such command). */
int kpmc_command_run(int argc, char **argv);

#endif
