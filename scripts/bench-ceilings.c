/*
 * The guest's own limits for `make bench` (scripts/bench.py runs it in the
 * guest; built on the host into build/bench/ceilings by scripts/bench.sh,
 * the guest shares the host's root).  What a perfect device could reach
 * with the memory system the guest has, so that vhca's figures can be
 * read as a share of them (Documentation/performance.md "What it measures").
 *
 *   ceilings ring [seconds]       two threads pass 64-byte slots through a
 *                                 ring in shared memory, one sequence word
 *                                 per slot: prints "ring_mpps N"
 *   ceilings pingpong [seconds]   two threads bounce one cache line: prints
 *                                 "pingpong_oneway_us N" (half a round trip)
 *
 * Each runs 3 rounds of the given seconds (default 1) and prints the best:
 * a ceiling is what the machine can do, noise only lowers it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOT_BYTES 64
#define RING_SLOTS 1024         /* 64 KiB: the size of a send queue */
#define ROUNDS 3

/* seq: 0 while the slot is free (the consumer clears it after taking the
 * message), the message's number + 1 once the producer filled it. */
struct slot {
	_Atomic uint64_t seq;
	uint8_t data[SLOT_BYTES - sizeof(uint64_t)];
};

static struct slot ring[RING_SLOTS] __attribute__((aligned(64)));
static _Atomic int stop;

/* Two cache lines, one per direction, so each is written by one side. */
static struct {
	_Atomic uint64_t v;
	char pad[56];
} ping __attribute__((aligned(64))), pong __attribute__((aligned(64)));

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *ring_consumer(void *arg)
{
	uint64_t n = 0, sum = 0;

	(void)arg;
	for (;;) {
		struct slot *s = &ring[n % RING_SLOTS];

		while (atomic_load_explicit(&s->seq, memory_order_acquire) != n + 1)
			if (atomic_load_explicit(&stop, memory_order_relaxed))
				return (void *)(uintptr_t)sum;
		sum += s->data[0];
		atomic_store_explicit(&s->seq, 0, memory_order_release);
		n++;
	}
}

/* Messages per second of one producer and one consumer thread. */
static double ring_round(double seconds)
{
	pthread_t consumer;
	double start, elapsed;
	uint64_t n = 0;

	memset(ring, 0, sizeof(ring));
	atomic_store(&stop, 0);
	pthread_create(&consumer, NULL, ring_consumer, NULL);
	start = now();
	do {
		for (int burst = 0; burst < 4096; burst++, n++) {
			struct slot *s = &ring[n % RING_SLOTS];

			while (atomic_load_explicit(&s->seq,
						    memory_order_acquire) != 0)
				;       /* the consumer has not taken it yet */
			memset(s->data, (int)n, sizeof(s->data));
			atomic_store_explicit(&s->seq, n + 1, memory_order_release);
		}
		elapsed = now() - start;
	} while (elapsed < seconds);
	/* Let the consumer drain what is in the ring, then stop it. */
	while (atomic_load_explicit(&ring[(n - 1) % RING_SLOTS].seq,
				    memory_order_acquire) != 0)
		;
	atomic_store(&stop, 1);
	pthread_join(consumer, NULL);
	return n / (now() - start);
}

static void *pong_thread(void *arg)
{
	uint64_t i = 1;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&ping.v, memory_order_acquire) == i) {
			atomic_store_explicit(&pong.v, i, memory_order_release);
			i++;
		}
	}
	return NULL;
}

/* One-way time: half of a write-then-see-the-answer round trip. */
static double pingpong_round(double seconds)
{
	pthread_t peer;
	double start, elapsed;
	uint64_t i = 0;

	atomic_store(&ping.v, 0);
	atomic_store(&pong.v, 0);
	atomic_store(&stop, 0);
	pthread_create(&peer, NULL, pong_thread, NULL);
	start = now();
	do {
		for (int burst = 0; burst < 1024; burst++) {
			i++;
			atomic_store_explicit(&ping.v, i, memory_order_release);
			while (atomic_load_explicit(&pong.v, memory_order_acquire) != i)
				;
		}
		elapsed = now() - start;
	} while (elapsed < seconds);
	atomic_store(&stop, 1);
	pthread_join(peer, NULL);
	return elapsed / i / 2;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 1.0, best = 0;
	int ring_mode;

	if (argc < 2 || (strcmp(argv[1], "ring") && strcmp(argv[1], "pingpong"))) {
		fprintf(stderr, "usage: %s ring|pingpong [seconds]\n", argv[0]);
		return 2;
	}
	ring_mode = strcmp(argv[1], "ring") == 0;
	for (int round = 0; round < ROUNDS; round++) {
		double r = ring_mode ? ring_round(seconds) : pingpong_round(seconds);

		if (ring_mode ? r > best : best == 0 || r < best)
			best = r;
	}
	if (ring_mode)
		printf("ring_mpps %.3f\n", best / 1e6);
	else
		printf("pingpong_oneway_us %.4f\n", best * 1e6);
	return 0;
}
