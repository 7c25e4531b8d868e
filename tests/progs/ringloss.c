// SPDX-License-Identifier: GPL-2.0
/*
 * ringloss RING ITERATIONS: a reader too slow for its ring. Opens a session
 * with a ring of RING records, samples itself every 100,000 user cycles while
 * it spins ITERATIONS two-instruction iterations, stops, and only then reads
 * everything. Prints what arrived:
 *   ringloss ebs=E detach=D lost=L lost_records=K other=O
 * With 2*ITERATIONS user cycles between start and stop the kernel produced
 * floor(2*ITERATIONS / 100000) ebs records (plus a few cycles of the enable
 * and disable writes) and one detach: E + D + L must equal that, exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "procput.h"
#include "spin.h"

int main(int argc, char **argv)
{
	unsigned long long ebs = 0, detach = 0, lost = 0, lostrecs = 0, other = 0;
	struct kpmc_record rec[32];
	unsigned long n;
	char req[32];
	ssize_t got;
	int mon;

	if (argc != 3) {
		fprintf(stderr, "usage: ringloss RING ITERATIONS\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	mon = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK);
	if (mon < 0) {
		perror("/proc/kpmc/monitor");
		return 1;
	}
	snprintf(req, sizeof(req), "ring=%s", argv[1]);
	put(mon, "monitor", req);
	put(-1, "config", "pmc0,ebs0=100000");
	put(-1, "enable", "1");
	spin(n);
	put(-1, "enable", "0");
	while ((got = read(mon, rec, sizeof(rec))) > 0) {
		for (size_t i = 0; i < (size_t)got / sizeof(rec[0]); i++) {
			switch (rec[i].kind) {
			case KPMC_REC_EBS:
				ebs++;
				break;
			case KPMC_REC_DETACH:
				detach++;
				break;
			case KPMC_REC_LOST:
				lostrecs++;
				lost += rec[i].lost;
				break;
			default:
				other++;
			}
		}
	}
	if (got < 0 && errno != EAGAIN) {
		perror("ringloss: read");
		return 1;
	}
	printf("ringloss ebs=%llu detach=%llu lost=%llu lost_records=%llu other=%llu\n",
	       ebs, detach, lost, lostrecs, other);
	return 0;
}
