// Host unit test of the device's placement order (qemu-device/vhca-place.c):
// a message's last bytes become visible only after every byte before them,
// as a real HCA's ascending PCIe writes land, so that a guest polling the
// last byte (riostream, MPI eager RDMA) reads a whole message (issue 24).
//
// How it sees the order deterministically: the destination is laid so that
// its last W bytes sit on a page of their own, made read-only.  The first
// store into that page faults; the SIGSEGV handler checks, at that instant,
// that every byte before the page already holds its new value, then makes
// the page writable and lets the store run again.  A plain memmove fails
// this for most sizes above two vectors: glibc stores the end (and, above
// eight vectors, the first vector last) out of order.
//
// SPDX-License-Identifier: GPL-2.0-or-later

#include <gtest/gtest.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

extern "C" {
#include "vhca-place.h"
}

namespace {

struct Watch {
	uint8_t *page;              // the read-only page: the last W bytes
	const uint8_t *dst;         // the message's first byte
	const uint8_t *want;        // what every byte must become
	size_t before;              // bytes of the message before page
	int faults;
	bool early;                 // a byte before page was still old
};
Watch watch;
long page_size;

// Where the last tail word of an n-byte placement starts: the tail's
// words start at the body's end, so the last one holds the last 8 bytes,
// or fewer in a message shorter than the tail.
size_t LastWordStart(size_t n)
{
	size_t body = vhca_place_body_len(n);

	return body + (n - body - 1) / VHCA_PLACE_WORD * VHCA_PLACE_WORD;
}

// A poller of the last byte (riostream's recv_xfer): the moment the
// store holding it has run, it writes its next message there.  The first
// store into the watched page faults; the handler lets it run once with
// the trap flag set, and the single-step trap after it is the poller: it
// writes kPollerByte and makes the page read-only again.  Any later store
// of the placement into the page faults once more: a byte stored twice,
// the poller's write undone.
constexpr uint8_t kPollerByte = 0xa5;
constexpr unsigned long kTrapFlag = 0x100;     // x86 EFLAGS.TF
struct Poller {
	bool on;
	uint8_t *last;              // the message's last byte, on page
};
Poller poller;

void on_segv(int, siginfo_t *info, void *ctx)
{
	uint8_t *addr = static_cast<uint8_t *>(info->si_addr);

	if (addr < watch.page || addr >= watch.page + page_size)
		abort();                // not ours: a real crash
	watch.faults++;
	if (memcmp(watch.dst, watch.want, watch.before) != 0)
		watch.early = true;
	mprotect(watch.page, page_size, PROT_READ | PROT_WRITE);
#if defined(__x86_64__)
	if (poller.on)
		static_cast<ucontext_t *>(ctx)->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
#endif
}

void on_trap(int, siginfo_t *, void *ctx)
{
#if defined(__x86_64__)
	static_cast<ucontext_t *>(ctx)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
#endif
	if (!poller.on)
		return;
	poller.on = false;
	*poller.last = kPollerByte;
	mprotect(watch.page, page_size, PROT_READ);
}

class PlaceOrder : public testing::Test {
protected:
	void SetUp() override
	{
		struct sigaction sa = {};

		page_size = sysconf(_SC_PAGESIZE);
		map_len = 8 * page_size + kMaxMessage * 2;
		map = static_cast<uint8_t *>(mmap(nullptr, map_len, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		ASSERT_NE(map, MAP_FAILED);
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		ASSERT_EQ(sigaction(SIGSEGV, &sa, &old_segv), 0);
		sa.sa_sigaction = on_trap;
		ASSERT_EQ(sigaction(SIGTRAP, &sa, &old_trap), 0);
	}
	void TearDown() override
	{
		sigaction(SIGSEGV, &old_segv, nullptr);
		sigaction(SIGTRAP, &old_trap, nullptr);
		munmap(map, map_len);
	}

	// Places n bytes so that the last `tail` of them are on the watched
	// page, the source src_shift bytes off the destination's page offset;
	// expects one fault with every earlier byte already placed.  With
	// `poll`, the Poller writes the last byte after the first store into
	// the page; no store may follow it.
	void Place(size_t n, size_t tail, size_t src_shift, bool poll = false)
	{
		uint8_t *page = map + 2 * page_size + kMaxMessage;
		page = reinterpret_cast<uint8_t *>(
			reinterpret_cast<uintptr_t>(page) & ~(uintptr_t)(page_size - 1));
		uint8_t *dst = page - (n - tail);
		// After the watched page, at the destination's page offset
		// plus src_shift.
		uint8_t *src = page + page_size + (dst - map) % page_size + src_shift;
		static uint8_t want[kMaxMessage];

		ASSERT_LE(n, kMaxMessage);
		ASSERT_LE(src + n, map + map_len);
		for (size_t i = 0; i < n; i++) {
			src[i] = static_cast<uint8_t>(i * 7 + n);
			dst[i] = static_cast<uint8_t>(~src[i]);
		}
		memcpy(want, src, n);
		// The store that faults holds the whole last word: the bytes
		// before that word are placed already.
		watch = Watch{page, dst, want, poll ? LastWordStart(n) : n - tail, 0, false};
		poller = Poller{poll, dst + n - 1};
		if (poll)
			want[n - 1] = kPollerByte;
		ASSERT_EQ(mprotect(page, page_size, PROT_READ), 0);
		vhca_place_host(dst, src, n);
		mprotect(page, page_size, PROT_READ | PROT_WRITE);
		EXPECT_EQ(watch.faults, 1) << (poll ? "the last byte stored again after "
						      "the poller saw it" : "");
		EXPECT_FALSE(watch.early) << "a store reached the last " << tail
					  << " of " << n << " bytes before an earlier byte";
		EXPECT_EQ(memcmp(dst, want, n), 0);
	}

	static constexpr size_t kMaxMessage = 3 * 65536;
	uint8_t *map = nullptr;
	size_t map_len = 0;
	struct sigaction old_segv = {};
	struct sigaction old_trap = {};
};

// The sizes glibc copies along different paths: 1..2 words, 1..2, 2..4,
// 4..8 and more than 8 vectors (16, 32 or 64 bytes), rep movsb (2 KiB and
// up), many pages.
const size_t kSizes[] = {8, 16, 24, 40, 63, 64, 65, 72, 100, 127, 128, 129, 200,
			 255, 256, 257, 384, 511, 512, 513, 768, 1000, 2048, 2049,
			 3000, 4096, 4097, 8192, 65536, 3 * 65536};

// The last word alone on the page: a poller of the last byte or word.
TEST_F(PlaceOrder, LastWordIsStoredLast)
{
	for (size_t n : kSizes) {
		SCOPED_TRACE(n);
		Place(n, n - LastWordStart(n), 0);
	}
}

// A poller that saw the last byte writes the buffer again at once (issue
// 24: riostream sets its next flag): no store of the placement may come
// after the one that made the last byte visible.  An 8-byte memcpy (glibc
// stores 8..15 bytes as two overlapping words) fails this.  x86-64 only:
// the poller runs from the single-step trap after that store.
#if defined(__x86_64__)
TEST_F(PlaceOrder, NothingIsStoredAfterTheLastByte)
{
	for (size_t n : kSizes) {
		SCOPED_TRACE(n);
		Place(n, 1, 0, true);
	}
}
#endif

// The whole tail on the page: a poller of a footer up to a cache line.
TEST_F(PlaceOrder, TailIsStoredAfterTheBody)
{
	for (size_t n : kSizes) {
		if (n < VHCA_PLACE_TAIL)
			continue;
		SCOPED_TRACE(n);
		Place(n, VHCA_PLACE_TAIL, 0);
	}
}

// Sources whose page offsets differ by 1..63 bytes are copied in 2 KiB
// pieces (glibc bug 30994): the order holds there too.
TEST_F(PlaceOrder, HoldsForPieceCopies)
{
	for (size_t shift : {1, 16, 63, 64, 4095}) {
		for (size_t n : {768, 4097, 65536}) {
			SCOPED_TRACE(testing::Message() << n << " bytes, source " << shift);
			Place(n, VHCA_PLACE_TAIL, shift);
		}
	}
}

// Overlapping source and destination keep memmove's meaning.
TEST(PlaceHost, OverlapIsAMemmove)
{
	uint8_t buf[4096], want[4096];

	for (size_t n : {8, 100, 1000, 3000}) {
		for (long shift : {-65, -8, -1, 1, 8, 65}) {
			for (size_t i = 0; i < sizeof(buf); i++)
				buf[i] = static_cast<uint8_t>(i * 13);
			memcpy(want, buf, sizeof(want));
			memmove(want + 512 + shift, want + 512, n);
			vhca_place_host(buf + 512 + shift, buf + 512, n);
			EXPECT_EQ(memcmp(buf, want, sizeof(buf)), 0) << n << " " << shift;
		}
	}
}

} // namespace
