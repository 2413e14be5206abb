/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpi_check.c - two MPI ranks exchanging data that each side checks, run by
 * selftests/verbs/middleware.py with Open MPI's UCX PML restricted to vhca's
 * transports (no shared memory, no TCP).
 *
 * Point-to-point: rank 0 sends a pattern of each size to rank 1, which
 * checks every byte and returns the pattern of the other rank; the sizes
 * cover UCX's eager short, eager copy and rendezvous (RDMA READ/WRITE of the
 * user buffer) protocols.  Collectives: Bcast, Allreduce and Alltoall, each
 * result checked.  With an argument BYTES (selftests/verbs/
 * soak_middleware.py: 4 MiB), then PINGPONGS round trips of that size, each
 * checked; with a second argument "fresh", each round trip in buffers
 * mapped for it and unmapped after it (mmap, munmap: what a large malloc
 * and free do before glibc raises its mmap threshold), so UCX's
 * registration cache drops each buffer when it is unmapped (UCM's memory
 * hooks) and registers the next anew: every page faulted in, pinned and
 * unpinned again each round trip.  Prints
 * "mpi_check: ok" from rank 0 when everything matched; any mismatch aborts
 * the job with a message naming it.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const int sizes[] = { 1, 8, 200, 4096, 65536, 1 << 20 };
#define PINGPONGS 20

static unsigned char pattern(int rank, int size, size_t i)
{
	return (unsigned char)(i * 31 + (size_t)size * 7 + (size_t)rank * 101 + 3);
}

static void fill(unsigned char *buf, int rank, int size)
{
	for (size_t i = 0; i < (size_t)size; i++)
		buf[i] = pattern(rank, size, i);
}

static void check(const unsigned char *buf, int from, int size, const char *what)
{
	for (size_t i = 0; i < (size_t)size; i++) {
		if (buf[i] != pattern(from, size, i)) {
			fprintf(stderr, "mpi_check: %s of %d bytes: byte %zu is 0x%02x, expected 0x%02x\n",
				what, size, i, buf[i], pattern(from, size, i));
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
}

static void fail(const char *what, long got, long expected)
{
	fprintf(stderr, "mpi_check: %s: got %ld, expected %ld\n", what, got, expected);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

static void point_to_point(int rank, unsigned char *out, unsigned char *in)
{
	int peer = 1 - rank;

	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int size = sizes[k];

		fill(out, rank, size);
		MPI_Sendrecv(out, size, MPI_BYTE, peer, k, in, size, MPI_BYTE, peer, k,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		check(in, peer, size, "Sendrecv");
		if (rank == 0) {
			MPI_Send(out, size, MPI_BYTE, 1, 100 + k, MPI_COMM_WORLD);
			MPI_Recv(in, size, MPI_BYTE, 1, 200 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			check(in, 1, size, "Recv of the reply");
		} else {
			MPI_Recv(in, size, MPI_BYTE, 0, 100 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			check(in, 0, size, "Recv");
			MPI_Send(out, size, MPI_BYTE, 0, 200 + k, MPI_COMM_WORLD);
		}
	}
}

/* One round trip of size bytes, rank 0 first; every byte checked. */
static void pingpong_once(int rank, unsigned char *out, unsigned char *in, int size)
{
	int peer = 1 - rank;

	fill(out, rank, size);
	if (rank == 0) {
		MPI_Send(out, size, MPI_BYTE, peer, 300, MPI_COMM_WORLD);
		MPI_Recv(in, size, MPI_BYTE, peer, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(in, size, MPI_BYTE, peer, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(out, size, MPI_BYTE, peer, 301, MPI_COMM_WORLD);
	}
	check(in, peer, size, "ping-pong");
}

/* PINGPONGS round trips of size bytes in the same two buffers. */
static void pingpong(int rank, unsigned char *out, unsigned char *in, int size)
{
	for (int i = 0; i < PINGPONGS; i++)
		pingpong_once(rank, out, in, size);
}

static unsigned char *map_buffer(int size)
{
	void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mpi_check: mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return buf;
}

/* pingpong() in buffers mapped for each round trip and unmapped after it. */
static void pingpong_fresh(int rank, int size)
{
	for (int i = 0; i < PINGPONGS; i++) {
		unsigned char *out = map_buffer(size), *in = map_buffer(size);

		pingpong_once(rank, out, in, size);
		munmap(in, size);
		munmap(out, size);
	}
}

static void collectives(int rank, int nranks, unsigned char *buf)
{
	int size = 1 << 16;
	long sum = 0, mine = 1000 + rank, expected = 0;
	int sendv[2], recvv[2];

	if (rank == 0)
		fill(buf, 0, size);
	MPI_Bcast(buf, size, MPI_BYTE, 0, MPI_COMM_WORLD);
	check(buf, 0, size, "Bcast");

	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	for (int r = 0; r < nranks; r++)
		expected += 1000 + r;
	if (sum != expected)
		fail("Allreduce sum", sum, expected);

	for (int r = 0; r < 2; r++)
		sendv[r] = rank * 10 + r;
	MPI_Alltoall(sendv, 1, MPI_INT, recvv, 1, MPI_INT, MPI_COMM_WORLD);
	for (int r = 0; r < 2; r++)
		if (recvv[r] != r * 10 + rank)
			fail("Alltoall element", recvv[r], r * 10 + rank);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, nranks;
	unsigned char *out, *in;
	int big;

	MPI_Init(&argc, &argv);
	big = argc > 1 ? atoi(argv[1]) : 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks != 2) {
		fprintf(stderr, "mpi_check: needs exactly 2 ranks, got %d\n", nranks);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	out = malloc(big > (1 << 20) ? big : 1 << 20);
	in = malloc(big > (1 << 20) ? big : 1 << 20);
	if (!out || !in)
		MPI_Abort(MPI_COMM_WORLD, 1);
	point_to_point(rank, out, in);
	collectives(rank, nranks, out);
	if (big > 0 && argc > 2 && strcmp(argv[2], "fresh") == 0)
		pingpong_fresh(rank, big);
	else if (big > 0)
		pingpong(rank, out, in, big);
	if (rank == 0)
		printf("mpi_check: ok\n");
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}
