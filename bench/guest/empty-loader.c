// SPDX-License-Identifier: GPL-2.0
/*
 * empty-loader PROG[,PROG] CMD [ARGS]: attach the named empty programs
 * (empty.bpf.c), run CMD, detach. Only for the trigger-cost benchmark.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "empty.skel.h"

int main(int argc, char **argv)
{
	struct empty_bpf *skel;
	struct bpf_program *prog;
	char names[256], *name, *save;
	int status, n = 0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: empty-loader PROG[,PROG] CMD [ARGS]\n");
		return 2;
	}
	skel = empty_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "empty-loader: load failed: %s\n",
			strerror(errno));
		return 1;
	}
	snprintf(names, sizeof(names), "%s", argv[1]);
	for (name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		prog = bpf_object__find_program_by_name(skel->obj, name);
		if (!prog || !bpf_program__attach(prog)) {
			fprintf(stderr, "empty-loader: %s: cannot attach\n",
				name);
			return 1;
		}
		n++;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	/* the links close with this process */
	empty_bpf__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
