// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * phc_timestamp.c DEVICE - the device's PTP hardware clock (the driver's
 * driver/shim/ptp.c) and the wall-clock CQE timestamps that follow it
 * (provider/clock.c), what rdma-core 65's tests/test_phc_timestamp.py
 * checks and more:
 *  - the PHC is /sys/class/infiniband/DEVICE/device/ptp/ptpN, and
 *    clock_gettime(FD_TO_CLOCKID) of /dev/ptpN reads it;
 *  - a SEND to itself (UD) on an extended CQ asking for
 *    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK: both completions'
 *    wall-clock stamps lie between the PHC read before the post and the
 *    one after the poll;
 *  - clock_adjtime(ADJ_SETOFFSET) of +1 s on the PHC: the next stamps
 *    are again between the PHC reads, and wall-clock minus raw count
 *    (the conversion) moved by exactly 1 s; then -1 s puts it back.
 * Built by scripts/build-provider.sh; run by selftests/verbs/uverbs.py.
 * Prints one line per check and "phc_timestamp: ok".
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "ud_self.h"

/* include/uapi/linux/posix-timers.h's CLOCKFD, the dynamic clock of an
 * open character device (Documentation/driver-api/ptp.rst). */
#define CLOCKFD 3
#define FD_TO_CLOCKID(fd) ((~(clockid_t)(fd) << 3) | CLOCKFD)

#define NSEC 1000000000ll
/* The kernel and the provider convert with the same timecounter state;
 * rounding of its fractional ns may differ by one between them. */
#define SLACK_NS 2

struct stamp {
	uint64_t raw;	/* the device count */
	uint64_t wall;	/* its wall-clock form */
};

/* /dev/ptpN of the device, from its PCI device's ptp/ directory. */
static int open_phc(const char *device)
{
	char path[512];
	struct dirent *d;
	DIR *dir;
	int fd = -1;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/ptp", device);
	dir = must(opendir(path), path);
	while ((d = readdir(dir)) && fd < 0) {
		if (strncmp(d->d_name, "ptp", 3))
			continue;
		printf("PHC: %s\n", d->d_name);
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		fd = open(path, O_RDWR);	/* clock_adjtime wants it writable */
		if (fd < 0)
			must(NULL, path);
	}
	closedir(dir);
	if (fd < 0)
		must(NULL, "no ptpN under the device");
	return fd;
}

static int64_t phc_ns(clockid_t clk)
{
	struct timespec ts;

	check("clock_gettime of the PHC", clock_gettime(clk, &ts), 0);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/* One SEND to itself; the two completions' stamps. */
static void send_stamped(struct ud *ud, struct stamp out[2])
{
	struct ibv_poll_cq_attr attr = {};
	int done = 0;
	long spins = 0;

	check("send", ud_send(ud, 64), 0);
	while (done < 2 && spins++ < 100000000) {
		if (ibv_start_poll(ud->cq, &attr))
			continue;
		do {
			check("status", ud->cq->status, IBV_WC_SUCCESS);
			out[done].raw = ibv_wc_read_completion_ts(ud->cq);
			out[done].wall = ibv_wc_read_completion_wallclock_ns(ud->cq);
			done++;
		} while (done < 2 && !ibv_next_poll(ud->cq));
		ibv_end_poll(ud->cq);
	}
	check("completions", done, 2);
}

/* A SEND whose stamps lie between PHC reads around it; returns the
 * conversion's offset (wall - raw) of the first. */
static int64_t stamped_between(struct ud *ud, clockid_t clk)
{
	struct stamp s[2];
	int64_t before, after;
	int i;

	before = phc_ns(clk);
	send_stamped(ud, s);
	after = phc_ns(clk);
	for (i = 0; i < 2; i++) {
		printf("PHC before %lld, stamp %llu, after %lld\n",
		       (long long)before, (unsigned long long)s[i].wall,
		       (long long)after);
		check("stamp not before the PHC read before",
		      (int64_t)s[i].wall >= before - SLACK_NS, 1);
		check("stamp not after the PHC read after",
		      (int64_t)s[i].wall <= after + SLACK_NS, 1);
	}
	return (int64_t)(s[0].wall - s[0].raw);
}

static void phc_shift(clockid_t clk, int sec)
{
	struct timex tx = { .modes = ADJ_SETOFFSET | ADJ_NANO };

	tx.time.tv_sec = sec;	/* ADJ_NANO: tv_usec holds ns */
	check("clock_adjtime ADJ_SETOFFSET", clock_adjtime(clk, &tx), 0);
}

/* wall - raw moved by `sec` s after the shift, within rounding. */
static void check_moved(int64_t from, int64_t to, int sec)
{
	int64_t moved = to - from;

	printf("conversion moved by %lld ns\n", (long long)moved);
	check("moved by the PHC's shift",
	      llabs(moved - sec * NSEC) <= SLACK_NS, 1);
}

int main(int argc, char **argv)
{
	uint64_t wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int64_t first, shifted, back;
	struct ud ud;
	clockid_t clk;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: phc_timestamp DEVICE\n");
		return 2;
	}
	fd = open_phc(argv[1]);
	clk = FD_TO_CLOCKID(fd);
	ctx = open_device(argv[1]);
	pd = must(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	ud_create_wc(ctx, pd, 0, wc_flags, &ud);

	first = stamped_between(&ud, clk);
	phc_shift(clk, 1);
	shifted = stamped_between(&ud, clk);
	check_moved(first, shifted, 1);
	phc_shift(clk, -1);
	back = stamped_between(&ud, clk);
	check_moved(shifted, back, -1);

	ud_destroy(&ud);
	check("dealloc PD", ibv_dealloc_pd(pd), 0);
	check("close device", ibv_close_device(ctx), 0);
	close(fd);
	printf("phc_timestamp: ok\n");
	return 0;
}
