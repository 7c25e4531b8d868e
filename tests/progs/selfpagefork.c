// SPDX-License-Identifier: GPL-2.0
/*
 * selfpagefork: map /proc/kpmc/self, fork, and report whether the child has
 * the mapping (it must not: the page is the parent thread's) and whether the
 * parent still has it. Prints "selfpagefork child=absent|present
 * parent=present|absent"; exit status 0 only for absent/present.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static int mapped(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "kpmc/self"))
			found = 1;
	fclose(f);
	return found;
}

int main(void)
{
	int fd = open("/proc/kpmc/self", O_RDONLY), status, child, parent;
	void *page;
	pid_t pid;

	if (fd < 0) {
		perror("selfpagefork: open");
		return 2;
	}
	page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		perror("selfpagefork: mmap");
		return 2;
	}
	pid = fork();
	if (pid == 0)
		_exit(mapped() == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		perror("selfpagefork: fork");
		return 2;
	}
	child = WEXITSTATUS(status) == 0 ? 0 : 1;
	parent = mapped();
	printf("selfpagefork child=%s parent=%s\n", child ? "present" : "absent",
	       parent == 1 ? "present" : "absent");
	return !child && parent == 1 ? 0 : 1;
}
