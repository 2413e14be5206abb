// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fork.c DEVICE - a process with registered memory and queues forks, and
 * keeps working.  The classic failure: after fork the parent's pages are
 * shared copy-on-write with the child, the parent's next write to a
 * buffer gives it a new page, and the device (holding the old page)
 * delivers where the parent no longer looks.  Linux >= 5.13 copies pinned
 * pages to the child at fork instead (ibv_is_fork_initialized() reports
 * IBV_FORK_UNNEEDED), and vhca pins every MR and ring (ib_umem_get), so:
 * while a child that scribbles over its copies is alive, the parent
 * writes new data into its buffers, sends it to itself (UD) and receives
 * it intact, several times; the child's writes never show in the parent.
 * Built by scripts/build-provider.sh; run by selftests/verbs/uverbs.py.
 * Prints one line per check and "fork: ok".
 */
#include <sys/wait.h>
#include <unistd.h>

#include "ud_self.h"

/* Sends `text` to itself and checks what arrived. */
static void exchange(struct ud *ud, const char *text)
{
	uint32_t len = strlen(text) + 1;

	strcpy(ud->buf, text);		/* a write after fork: COW would break here */
	memset(ud->buf + 2048, 0, 64 + 40);
	check("send", ud_send(ud, len), 0);
	check("completions", ud_poll(ud, 2), 2);
	if (strcmp(ud->buf + 2048 + 40, text)) {
		fprintf(stderr, "fork: received \"%.40s\", sent \"%s\"\n",
			ud->buf + 2048 + 40, text);
		exit(1);
	}
	printf("received: %s\n", text);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_device(argc > 1 ? argv[1] : NULL);
	struct ibv_pd *pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	int to_child[2], status;
	struct ud ud;
	char go;
	pid_t pid;

	printf("ibv_is_fork_initialized: %d (IBV_FORK_UNNEEDED is %d)\n",
	       ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ud_create(ctx, pd, 0, &ud);
	exchange(&ud, "before fork");

	check("pipe", pipe(to_child), 0);
	pid = fork();
	if (pid == 0) {
		/* the child's copies: scribble, then wait until the parent
		 * has used its own pages, so that the copies stay alive */
		memset(ud.buf, 0xa5, sizeof(ud.buf));
		_exit(read(to_child[0], &go, 1) == 1 ? 0 : 1);
	}
	check("fork", pid > 0, 1);
	exchange(&ud, "after fork, child alive");
	exchange(&ud, "again, child alive");
	check("release the child", write(to_child[1], "x", 1), 1);
	check("child exit", waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, 1);
	exchange(&ud, "after the child exited");

	ud_destroy(&ud);
	check("free the PD", ibv_dealloc_pd(pd), 0);
	ibv_close_device(ctx);
	printf("fork: ok\n");
	return 0;
}
