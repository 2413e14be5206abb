/*
 * memcpy bandwidth of the machine it runs on: the ceiling row of
 * `make bench` (scripts/bench.py runs it in the guest; built on the host
 * into build/bench/memcpy-bw by scripts/bench.sh, the guest shares the
 * host's root).
 *
 *   memcpy-bw [SIZE] [rounds]
 *
 * Copies a buffer of SIZE (mebibytes, default 32, larger than any cache;
 * or kibibytes with a k suffix, from 64k: "64k" is the footprint of
 * perftest's 64 KiB bandwidth runs, which reuse one message buffer)
 * into another in 64 KiB chunks (the message size of the bandwidth rows),
 * for at least 0.5 s per round, and prints the median over the rounds
 * (default 3) in MB/s with MB = 2^20 bytes, as perftest counts:
 *
 *   memcpy_mbps 1234.5
 *
 * Both buffers are page-aligned, as perftest's buffers and the guest pages
 * the device copies between are.  The offset between source and
 * destination matters: with glibc 2.36 on AMD Zen hosts (FSRM), a copy of
 * 2 KiB or more whose (dst - src) & 0xfff lies in 1..63 takes the
 * `rep movsb` path at a twentieth of the speed (glibc bug 30994; measured
 * on the 2026-11-28 machine: 1.7 GB/s against 39 GB/s for 64 KiB).  Two
 * malloc()ed 64 KiB buffers sit 64 KiB + 16 bytes apart, exactly that case,
 * which made the host_memcpy ceiling a twentieth of the host's memcpy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (64 * 1024)
#define MAX_ROUNDS 15

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One round: MiB/s over whole passes through the buffer, >= 0.5 s. */
static double round_mbps(char *dst, const char *src, size_t size)
{
	double start = now(), elapsed;
	size_t copied = 0;

	do {
		for (size_t off = 0; off + CHUNK <= size; off += CHUNK)
			memcpy(dst + off, src + off, CHUNK);
		copied += size;
		/* Keep the compiler from dropping the copies. */
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		elapsed = now() - start;
	} while (elapsed < 0.5);
	return copied / elapsed / (1024.0 * 1024.0);
}

int main(int argc, char **argv)
{
	char *unit = NULL;
	size_t amount = argc > 1 ? strtoul(argv[1], &unit, 0) : 32;
	int kib = unit && *unit == 'k';
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	double results[MAX_ROUNDS];
	size_t size = amount * 1024 * (kib ? 1 : 1024);
	char *src, *dst;

	if (size < CHUNK || size > (size_t)1024 * 1024 * 1024 || rounds < 1 ||
	    rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: %s [MiB 1..1024 | KiB 64k..] [rounds 1..%d]\n",
			argv[0], MAX_ROUNDS);
		return 2;
	}
	src = aligned_alloc(4096, size);
	dst = aligned_alloc(4096, size);
	if (!src || !dst) {
		fprintf(stderr, "memcpy-bw: cannot allocate 2 x %zu bytes\n", size);
		return 1;
	}
	/* Fault every page in before timing. */
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	for (int i = 0; i < rounds; i++)
		results[i] = round_mbps(dst, src, size);
	qsort(results, rounds, sizeof(results[0]), cmp_double);
	printf("memcpy_mbps %.1f\n", results[rounds / 2]);
	free(src);
	free(dst);
	return 0;
}
