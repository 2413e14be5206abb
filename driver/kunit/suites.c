// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * vhca_kunit.ko: KUnit suites for the driver core, run in the debug guest
 * kernel (KASAN, lockdep, kmemleak) against the fake device of
 * driver/fake (kunit_fake.h).  Suites: vhca_cmdq, vhca_eq, vhca_ring, vhca_pd,
 * vhca_ports, vhca_alloc_fail.  Documentation/testing-guest-tiers.md "KUnit".
 *
 * Every test drives the core through vhca_core.h exactly as the shims do
 * (create, start, ..., stop, quiesce the interrupts, destroy); the fixture
 * then checks that the device was left reset, that every object the core
 * allocated was freed and that the fake device saw no protocol error.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/module.h>

#include "kunit_bridge.h"
#include "vhca_core_verbs.h"
#include "vhca_errno.h"

/* Generous: TCG plus KASAN make everything slow. */
#define KT_WAIT_MS	10000

struct kt_fixture {
	struct vhca_fake *fake;
	struct vhca_core_device *core;
	bool started;	/* protocol errors are checked for started cores */
};

void vhca_kunit_fail(void *test, const char *file, int line, const char *fmt,
		     ...)
{
	/* A variable, not a cast in the macro's argument: 7.3's KUNIT_FAIL
	 * expands test->last_seen without parentheses around test. */
	struct kunit *kunit = test;
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	KUNIT_FAIL(kunit, "%s:%d: %pV", file, line, &vaf);
	va_end(args);
}

static int kt_init_with(struct kunit *test, const struct vhca_fake_config *config)
{
	struct kt_fixture *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);

	if (!fx)
		return -ENOMEM;
	vhca_fake_kernel_reset();
	fx->fake = vhca_fake_create(config);
	if (!fx->fake)
		return -ENOMEM;
	test->priv = fx;
	return 0;
}

static int kt_init(struct kunit *test)
{
	return kt_init_with(test, NULL);
}

static struct kt_fixture *kt(struct kunit *test)
{
	return test->priv;
}

/* pci.c's order: create, (request_irq), start. */
static int kt_create_and_start(struct kunit *test, unsigned int vectors)
{
	struct kt_fixture *fx = kt(test);
	int err;

	err = vhca_core_create(vhca_fake_kdev(fx->fake), &fx->core);
	if (err) {
		fx->core = NULL;
		return err;
	}
	fx->started = true;
	vhca_fake_set_core(fx->fake, fx->core);
	err = vhca_core_start(fx->core, vectors);
	return err;
}

/* pci.c's remove order: stop, (free_irq), destroy. */
static void kt_stop_and_destroy(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);

	if (!fx->core)
		return;
	vhca_core_stop(fx->core);
	vhca_fake_quiesce(fx->fake);
	vhca_core_destroy(fx->core);
	fx->core = NULL;
}

static void kt_exit(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);

	if (!fx)
		return;
	kt_stop_and_destroy(test);
	vhca_fake_quiesce(fx->fake);
	KUNIT_EXPECT_FALSE_MSG(test, vhca_fake_enabled(fx->fake),
			       "device left enabled");
	KUNIT_EXPECT_EQ_MSG(test, vhca_fake_outstanding(), 0LL,
			    "core objects not freed");
	if (fx->started)
		KUNIT_EXPECT_EQ_MSG(test, vhca_fake_protocol_errors(fx->fake), 0u,
				    "device saw bad DMA, doorbells or registers");
	KUNIT_EXPECT_EQ_MSG(test, vhca_fake_kernel_errors(), 0u,
			    "DMA rings freed while the device used them");
	vhca_fake_destroy(fx->fake);
	vhca_fake_kernel_reset();
}

/* ======================= vhca_cmdq ======================= */

static void cmdq_query_device_round_trip(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	const struct vhca_device_attr *attr;
	struct vhca_cmd cmd;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	attr = vhca_core_device_attr(fx->core);
	KUNIT_EXPECT_EQ(test, attr->num_ports, 2);
	KUNIT_EXPECT_EQ(test, attr->node_guid, 0x5254000000001000ull);
	KUNIT_EXPECT_EQ(test, attr->fw_version, VHCA_FW_VERSION_PACK(1, 2, 3));
	KUNIT_EXPECT_EQ(test, vhca_core_num_ports(fx->core), 2u);
	KUNIT_EXPECT_EQ(test, vhca_core_num_comp_vectors(fx->core), 2u);
	KUNIT_ASSERT_TRUE(test, vhca_fake_executed(fx->fake, 0, &cmd, NULL));
	KUNIT_EXPECT_EQ(test, cmd.opcode, VHCA_CMD_QUERY_DEVICE);
	KUNIT_EXPECT_EQ(test, cmd.in_addr, 0ull);
	KUNIT_EXPECT_EQ(test, cmd.in_len, 0u);
	KUNIT_EXPECT_EQ(test, cmd.out_len, (u32)sizeof(struct vhca_device_attr));
	KUNIT_EXPECT_NE(test, cmd.out_addr, 0ull);
	KUNIT_EXPECT_EQ(test, vhca_fake_count_opcode(fx->fake, VHCA_CMD_CREATE_EQ), 2u);
	KUNIT_EXPECT_TRUE(test, vhca_fake_eq_live(fx->fake, 1));
	KUNIT_EXPECT_TRUE(test, vhca_fake_eq_live(fx->fake, 2));
	kt_stop_and_destroy(test);
	KUNIT_EXPECT_EQ(test, vhca_fake_count_opcode(fx->fake, VHCA_CMD_DESTROY_EQ), 2u);
}

/* Tokens are generation << 8 | slot: unique over many ring wraps, and a
 * reused slot always carries a newer generation. */
static void cmdq_token_generations(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int i, j, n, pdn;
	struct vhca_cmd a, b;
	u32 *last_generation = kunit_kcalloc(test, 256, sizeof(u32), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, last_generation);
	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	for (i = 0; i < 100; i++) {
		KUNIT_ASSERT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), 0);
		KUNIT_ASSERT_EQ(test, vhca_core_dealloc_pd(fx->core, pdn), 0);
	}
	n = vhca_fake_num_executed(fx->fake);
	KUNIT_ASSERT_LE(test, n, (unsigned int)VHCA_FAKE_LOG);
	KUNIT_EXPECT_GT(test, n, 2u << vhca_fake_cmdq_log(fx->fake));
	KUNIT_EXPECT_EQ(test, vhca_fake_cmdq_ci(fx->fake), vhca_fake_cmdq_pi(fx->fake));
	for (i = 0; i < n; i++) {
		u32 token, slot, generation;

		KUNIT_ASSERT_TRUE(test, vhca_fake_executed(fx->fake, i, &a, NULL));
		token = a.token;
		slot = token & 0xff;
		generation = token >> 8;
		KUNIT_EXPECT_LT(test, slot, 1u << vhca_fake_cmdq_log(fx->fake));
		KUNIT_EXPECT_GT_MSG(test, generation, last_generation[slot],
				    "command %u reuses slot %u without a newer generation", i, slot);
		last_generation[slot] = generation;
		for (j = 0; j < i; j++) {
			KUNIT_ASSERT_TRUE(test, vhca_fake_executed(fx->fake, j, &b, NULL));
			KUNIT_EXPECT_NE_MSG(test, a.token, b.token,
					    "commands %u and %u share a token", j, i);
		}
	}
}

static void cmdq_status_to_errno(struct kunit *test)
{
	static const struct { u8 status; int error; } cases[] = {
		{ VHCA_CMD_OK, 0 },
		{ VHCA_CMD_BAD_OPCODE, -VHCA_EOPNOTSUPP },
		{ VHCA_CMD_BAD_PARAM, -VHCA_EINVAL },
		{ VHCA_CMD_BAD_HANDLE, -VHCA_ENOENT },
		{ VHCA_CMD_NO_RESOURCES, -VHCA_ENOMEM },
		{ VHCA_CMD_BAD_ADDR, -VHCA_EFAULT },
		{ VHCA_CMD_BAD_STATE, -VHCA_EINVAL },
		{ VHCA_CMD_BAD_SIZE, -VHCA_EINVAL },
		{ VHCA_CMD_BUSY, -VHCA_EBUSY },
		{ VHCA_CMD_INTERNAL, -VHCA_EIO },
		{ 0x0a, -VHCA_EPROTO },
		{ 0xff, -VHCA_EPROTO },
	};
	struct kt_fixture *fx = kt(test);
	unsigned int i, pdn;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		vhca_fake_force_status(fx->fake, VHCA_CMD_ALLOC_PD, cases[i].status);
		KUNIT_EXPECT_EQ_MSG(test, vhca_core_alloc_pd(fx->core, &pdn),
				    cases[i].error, "status 0x%x", cases[i].status);
		vhca_fake_force_status(fx->fake, VHCA_CMD_ALLOC_PD, -1);
	}
	/* Only the OK case allocated, in the core and in the device (a
	 * forced failure replaces the execution): PD 1, the first. */
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 1u);
	KUNIT_EXPECT_EQ(test, vhca_fake_pds_allocated(fx->fake), 1u);
	KUNIT_EXPECT_EQ(test, vhca_core_dealloc_pd(fx->core, 1), 0);
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 0u);
}

/* A command the device never completes: -ETIMEDOUT, then the queue is
 * dead and later commands fail at once with -EIO; the late completion is
 * ignored; teardown still works. */
static void cmdq_timeout_kills_queue(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int pdn, executed, warnings;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	vhca_core_set_cmd_timeout(fx->core, 200);
	vhca_fake_set_hang(fx->fake, 1);
	KUNIT_EXPECT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), -VHCA_ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, vhca_kt_cmdq_dead(fx->core));
	executed = vhca_fake_num_executed(fx->fake);
	KUNIT_EXPECT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), -VHCA_EIO);
	KUNIT_EXPECT_EQ(test, vhca_core_query_pkey(fx->core, 1, 0, (unsigned short *)&pdn),
			-VHCA_EIO);
	KUNIT_EXPECT_EQ(test, vhca_fake_num_executed(fx->fake), executed);
	/* The device wakes up and completes the old command: logged, ignored. */
	warnings = vhca_fake_warnings();
	vhca_fake_set_hang(fx->fake, 0);
	vhca_fake_complete_hung(fx->fake);
	KUNIT_EXPECT_EQ(test, vhca_fake_wait_consumed(fx->fake, 0, KT_WAIT_MS), 0);
	KUNIT_EXPECT_GT(test, vhca_fake_warnings(), warnings);
	KUNIT_EXPECT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), -VHCA_EIO);
}

static void cmdq_rejects_oversized(struct kunit *test)
{
	vhca_kt_cmdq_rejects_oversized(test, kt(test)->fake);
}

static void cmdq_round_trip_data(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	struct vhca_node_desc desc = { .desc = "vhca kunit node" };
	struct vhca_port_attr attr;
	struct vhca_gid gid;
	unsigned short pkey;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	KUNIT_EXPECT_EQ(test, vhca_core_set_node_desc(fx->core, &desc), 0);
	KUNIT_EXPECT_EQ(test, vhca_core_query_pkey(fx->core, 1, 0, &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, (unsigned short)VHCA_DEFAULT_PKEY);
	KUNIT_EXPECT_EQ(test, vhca_core_query_pkey(fx->core, 2, 1, &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, 0);
	KUNIT_EXPECT_EQ(test, vhca_core_query_gid(fx->core, 2, 0, &gid), 0);
	KUNIT_EXPECT_EQ(test, gid.raw[0], 0xfe);
	KUNIT_EXPECT_EQ(test, gid.raw[1], 0x80);
	KUNIT_EXPECT_EQ(test, gid.raw[15], 0x02);	/* node GUID + port 2 */
	KUNIT_EXPECT_EQ(test, vhca_core_query_port(fx->core, 1, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.state, VHCA_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, attr.port_guid, 0x5254000000001001ull);
	KUNIT_EXPECT_EQ(test, vhca_core_query_gid(fx->core, 3, 0, &gid), -VHCA_EINVAL);
	KUNIT_EXPECT_EQ(test, vhca_core_query_pkey(fx->core, 1, VHCA_PKEY_TABLE_LEN, &pkey),
			-VHCA_EINVAL);
}

static struct kunit_case cmdq_cases[] = {
	KUNIT_CASE(cmdq_query_device_round_trip),
	KUNIT_CASE(cmdq_round_trip_data),
	KUNIT_CASE(cmdq_token_generations),
	KUNIT_CASE(cmdq_status_to_errno),
	KUNIT_CASE(cmdq_timeout_kills_queue),
	KUNIT_CASE(cmdq_rejects_oversized),
	{}
};

static struct kunit_suite cmdq_suite = {
	.name = "vhca_cmdq",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = cmdq_cases,
};

/* ======================= vhca_eq ======================= */

static void eq_owner_bit_wraps(struct kunit *test)
{
	vhca_kt_eq_owner_bit_wraps(test, kt(test)->fake);
}

/* Port events on EQ 0 in bursts, well over three wraps of its ring: every
 * one is consumed, in order, and the EQ ends armed. */
static void eq0_consumes_over_wraps(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int base, burst, i, total = 0, size, port, event;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	size = 1u << vhca_fake_eq_log(fx->fake, 0);
	base = vhca_fake_num_port_events(fx->fake);
	for (burst = 0; burst < 5; burst++) {
		for (i = 0; i < size * 3 / 4; i++, total++)
			KUNIT_ASSERT_EQ(test, vhca_fake_post_port_event(fx->fake, 1,
					VHCA_PORT_EV_LID_CHANGE, VHCA_PORT_ACTIVE,
					(total % 100) + 2), 0);
		KUNIT_ASSERT_EQ(test, vhca_fake_wait_consumed(fx->fake, 0, KT_WAIT_MS), 0);
	}
	KUNIT_EXPECT_GT(test, total, 3 * size);
	KUNIT_EXPECT_EQ(test, vhca_fake_num_port_events(fx->fake) - base, total);
	for (i = base; i < min(base + total, (unsigned int)VHCA_FAKE_EVENT_LOG); i++) {
		vhca_fake_port_event(fx->fake, i, &port, &event);
		KUNIT_EXPECT_EQ(test, port, 1u);
		KUNIT_EXPECT_EQ(test, event, (unsigned int)VHCA_PORT_EV_LID_CHANGE);
	}
	KUNIT_EXPECT_EQ(test, vhca_kt_eq0_consumer_index(fx->core),
			vhca_fake_eq_producer(fx->fake, 0));
}

/* The doorbell values of one long Poll over a full ring: progress without
 * arming every half ring, then one armed doorbell at the final index. */
static void eq_doorbell_and_arm_values(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int start, size, first_db, n, i;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_wait_consumed(fx->fake, 0, KT_WAIT_MS), 0);
	size = 1u << vhca_fake_eq_log(fx->fake, 0);
	start = vhca_kt_eq0_consumer_index(fx->core);
	/* "Mask" the interrupt: events pile up, the EQ disarms itself. */
	vhca_fake_set_core(fx->fake, NULL);
	for (i = 0; i < size; i++)
		KUNIT_ASSERT_EQ(test, vhca_fake_post_port_event(fx->fake, 2,
				VHCA_PORT_EV_SM_CHANGE, VHCA_PORT_ACTIVE, 3), 0);
	/* Full: one more does not fit behind the last doorbell's index. */
	KUNIT_EXPECT_EQ(test, vhca_fake_post_port_event(fx->fake, 2,
			VHCA_PORT_EV_SM_CHANGE, VHCA_PORT_ACTIVE, 3), -ENOSPC);
	first_db = vhca_fake_num_eq_doorbells(fx->fake);
	/* Run the handler once, as the interrupt would. */
	local_irq_save(flags);
	vhca_core_irq(fx->core, 0);
	local_irq_restore(flags);
	vhca_fake_set_core(fx->fake, fx->core);
	n = vhca_fake_num_eq_doorbells(fx->fake) - first_db;
	KUNIT_ASSERT_EQ(test, n, 3u);
	KUNIT_EXPECT_EQ(test, vhca_fake_eq_doorbell(fx->fake, first_db),
			vhca_db_eq_value(0, start + size / 2, 0));
	KUNIT_EXPECT_EQ(test, vhca_fake_eq_doorbell(fx->fake, first_db + 1),
			vhca_db_eq_value(0, start + size, 0));
	KUNIT_EXPECT_EQ(test, vhca_fake_eq_doorbell(fx->fake, first_db + 2),
			vhca_db_eq_value(0, start + size, 1));
	KUNIT_EXPECT_EQ(test, vhca_kt_eq0_consumer_index(fx->core), start + size);
	KUNIT_EXPECT_EQ(test, vhca_fake_wait_consumed(fx->fake, 0, KT_WAIT_MS), 0);
}

/* Completion EQs (vectors 1..n-1): events are consumed, the EQ re-armed. */
static void eq_completion_eqs_rearm(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	struct vhca_eqe eqe = { .type = VHCA_EQE_COMPLETION };
	unsigned int eqn, i, irqs;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	for (eqn = 1; eqn <= 2; eqn++) {
		irqs = vhca_fake_irqs(fx->fake, eqn);
		for (i = 0; i < 300; i++) {
			KUNIT_ASSERT_EQ(test, vhca_fake_post_eqe(fx->fake, eqn, &eqe), 0);
			if (i % 50 == 49)
				KUNIT_ASSERT_EQ(test, vhca_fake_wait_consumed(fx->fake, eqn,
						KT_WAIT_MS), 0);
		}
		KUNIT_EXPECT_EQ(test, vhca_fake_wait_consumed(fx->fake, eqn, KT_WAIT_MS), 0);
		KUNIT_EXPECT_GT(test, vhca_fake_irqs(fx->fake, eqn), irqs);
	}
}

struct kt_cq_events {
	atomic_t count;
	atomic_t in_hardirq;
};

static void kt_cq_completion(void *cq_context)
{
	struct kt_cq_events *events = cq_context;

	if (in_hardirq())
		atomic_inc(&events->in_hardirq);
	atomic_inc(&events->count);
}

static bool kt_wait_count(atomic_t *count, int expected)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	while (atomic_read(count) < expected) {
		if (time_after(jiffies, deadline))
			return false;
		msleep(1);
	}
	return true;
}

/* The data path through the device model: each CQE of an armed CQ raises
 * one completion event on the CQ's EQ, and the core calls the CQ's handler
 * from that vector's interrupt, in hard-IRQ context; an unarmed CQ's CQE
 * raises none. */
static void eq_cq_completion_events(struct kunit *test)
{
	static const struct vhca_core_event_ops ops = {
		.cq_completion = kt_cq_completion,
	};
	struct vhca_cqe cqe = { .wr_id = 0x1234, .opcode = VHCA_CQE_SEND };
	/* Static: a failed assertion returns with the CQ still live. */
	static struct kt_cq_events events;
	struct kt_fixture *fx = kt(test);
	struct vhca_core_cq *cq;
	unsigned int actual, cqn, eqn;
	int i;

	atomic_set(&events.count, 0);
	atomic_set(&events.in_hardirq, 0);
	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	vhca_core_set_event_ops(fx->core, &ops);
	KUNIT_ASSERT_EQ(test, vhca_core_create_cq(fx->core, 15, 1, &events, &cq,
						  &actual), 0);
	KUNIT_EXPECT_GE(test, actual, 15u);
	cqn = vhca_kt_cq_num(cq);
	for (i = 1; i <= 3; i++) {
		KUNIT_ASSERT_EQ(test, vhca_core_arm_cq(cq, VHCA_CORE_CQ_NEXT_COMP), 0);
		vhca_fake_post_cqe(fx->fake, cqn, &cqe);
		KUNIT_ASSERT_TRUE_MSG(test, kt_wait_count(&events.count, i),
				      "no completion event for CQE %d", i);
	}
	/* Not armed again: the CQE is written, no event follows. */
	vhca_fake_post_cqe(fx->fake, cqn, &cqe);
	for (eqn = 0; eqn < 3; eqn++)
		KUNIT_EXPECT_EQ(test, vhca_fake_wait_consumed(fx->fake, eqn, KT_WAIT_MS), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&events.count), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&events.in_hardirq), 3);
	KUNIT_EXPECT_EQ(test, vhca_core_destroy_cq(cq), 0);
}

static struct kunit_case eq_cases[] = {
	KUNIT_CASE(eq_owner_bit_wraps),
	KUNIT_CASE(eq0_consumes_over_wraps),
	KUNIT_CASE(eq_doorbell_and_arm_values),
	KUNIT_CASE(eq_completion_eqs_rearm),
	KUNIT_CASE(eq_cq_completion_events),
	{}
};

static struct kunit_suite eq_suite = {
	.name = "vhca_eq",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = eq_cases,
};

/* ======================= vhca_ring ======================= */

/* vhca_hw.h's owner parity over free-running indexes, including the 2^32
 * wrap of the index itself. */
static void ring_owner_parity(struct kunit *test)
{
	static const u32 logs[] = { VHCA_MIN_LOG_EQ, 3, 7, 8, VHCA_MAX_LOG_EQ };
	static const u32 starts[] = { 0, 1000, 0xfffffff0u };
	unsigned int l, s, k;

	for (l = 0; l < ARRAY_SIZE(logs); l++) {
		u32 size = 1u << logs[l];

		for (s = 0; s < ARRAY_SIZE(starts); s++) {
			for (k = 0; k < 64; k++) {
				u32 idx = starts[s] + k;

				KUNIT_EXPECT_EQ(test, vhca_eqe_owner(idx, logs[l]),
						(u8)(((idx / size) & 1) ? 0 : 1));
				/* The next pass over the same slot flips it. */
				KUNIT_EXPECT_NE(test, vhca_eqe_owner(idx, logs[l]),
						vhca_eqe_owner(idx + size, logs[l]));
			}
		}
	}
	KUNIT_EXPECT_EQ(test, vhca_eqe_owner(0, VHCA_MIN_LOG_EQ), 1);
}

static void ring_eq_doorbell_fields(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vhca_db_eq_value(0, 0, 0), 0u);
	KUNIT_EXPECT_EQ(test, vhca_db_eq_value(0, 5, 1), 5u | VHCA_DB_EQ_ARM);
	KUNIT_EXPECT_EQ(test, vhca_db_eq_value(3, 0x1234, 0), 0x03001234u);
	/* The consumer index runs free; the doorbell carries 24 bits. */
	KUNIT_EXPECT_EQ(test, vhca_db_eq_value(1, 0x01000005u, 1),
			0x01000005u | VHCA_DB_EQ_ARM);
	KUNIT_EXPECT_EQ(test, vhca_db_eq_value(32, 0xffffffffu, 0), 0x20ffffffu);
	KUNIT_EXPECT_EQ(test, vhca_db_eq_value(0x80, 0, 0), 0u);
}

/* The command ring wraps many times: command i is read from ring slot
 * i mod size, and producer and consumer indexes agree at the end. */
static void ring_cmdq_wraps(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int i, n, slot, mask, pdn;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	mask = (1u << vhca_fake_cmdq_log(fx->fake)) - 1;
	for (i = 0; i < 5 * (mask + 1); i++) {
		KUNIT_ASSERT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), 0);
		KUNIT_ASSERT_EQ(test, vhca_core_dealloc_pd(fx->core, pdn), 0);
	}
	n = vhca_fake_num_executed(fx->fake);
	KUNIT_EXPECT_EQ(test, vhca_fake_cmdq_pi(fx->fake), n);
	KUNIT_EXPECT_EQ(test, vhca_fake_cmdq_ci(fx->fake), n);
	for (i = n > VHCA_FAKE_LOG ? n - VHCA_FAKE_LOG : 0; i < n; i++) {
		struct vhca_cmd cmd;

		KUNIT_ASSERT_TRUE(test, vhca_fake_executed(fx->fake, i, &cmd, &slot));
		KUNIT_EXPECT_EQ(test, slot, i & mask);
	}
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_owner_parity),
	KUNIT_CASE(ring_eq_doorbell_fields),
	KUNIT_CASE(ring_cmdq_wraps),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "vhca_ring",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = ring_cases,
};

/* ======================= vhca_pd ======================= */

static void pd_alloc_until_exhausted(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int pdns[8], pdn, i, j;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, vhca_core_alloc_pd(fx->core, &pdns[i]), 0);
		KUNIT_EXPECT_GE(test, pdns[i], 1u);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, pdns[i], pdns[j]);
	}
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 8u);
	KUNIT_EXPECT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), -VHCA_ENOMEM);
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 8u);
	/* A freed number is handed out again. */
	KUNIT_EXPECT_EQ(test, vhca_core_dealloc_pd(fx->core, pdns[3]), 0);
	KUNIT_EXPECT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), 0);
	KUNIT_EXPECT_EQ(test, pdn, pdns[3]);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, vhca_core_dealloc_pd(fx->core, pdns[i]), 0);
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 0u);
	KUNIT_EXPECT_EQ(test, vhca_fake_pds_allocated(fx->fake), 0u);
}

static void pd_dealloc_unknown(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int pdn;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	KUNIT_ASSERT_EQ(test, vhca_core_alloc_pd(fx->core, &pdn), 0);
	KUNIT_EXPECT_EQ(test, vhca_core_dealloc_pd(fx->core, pdn + 1), -VHCA_ENOENT);
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 1u);
	KUNIT_EXPECT_EQ(test, vhca_core_dealloc_pd(fx->core, pdn), 0);
	KUNIT_EXPECT_EQ(test, vhca_core_dealloc_pd(fx->core, pdn), -VHCA_ENOENT);
	KUNIT_EXPECT_EQ(test, vhca_kt_pds_outstanding(fx->core), 0u);
}

static struct kunit_case pd_cases[] = {
	KUNIT_CASE(pd_alloc_until_exhausted),
	KUNIT_CASE(pd_dealloc_unknown),
	{}
};

static struct kunit_suite pd_suite = {
	.name = "vhca_pd",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = pd_cases,
};

/* ======================= vhca_ports ======================= */

static void ports_event_dispatch(struct kunit *test)
{
	static const struct { u8 port, subtype, state; } posted[] = {
		{ 1, VHCA_PORT_EV_DOWN, VHCA_PORT_DOWN },
		{ 1, VHCA_PORT_EV_ACTIVE, VHCA_PORT_ACTIVE },
		{ 2, VHCA_PORT_EV_LID_CHANGE, VHCA_PORT_ACTIVE },
		{ 2, VHCA_PORT_EV_SM_CHANGE, VHCA_PORT_ACTIVE },
		{ 1, VHCA_PORT_EV_PKEY_CHANGE, VHCA_PORT_ACTIVE },
		{ 2, VHCA_PORT_EV_GID_CHANGE, VHCA_PORT_ACTIVE },
		{ 1, VHCA_PORT_EV_CLIENT_REREGISTER, VHCA_PORT_ACTIVE },
	};
	struct kt_fixture *fx = kt(test);
	unsigned int i, base, port, event;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	base = vhca_fake_num_port_events(fx->fake);
	for (i = 0; i < ARRAY_SIZE(posted); i++)
		KUNIT_ASSERT_EQ(test, vhca_fake_post_port_event(fx->fake, posted[i].port,
				posted[i].subtype, posted[i].state, 7), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_wait_consumed(fx->fake, 0, KT_WAIT_MS), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_num_port_events(fx->fake) - base,
			(unsigned int)ARRAY_SIZE(posted));
	for (i = 0; i < ARRAY_SIZE(posted); i++) {
		vhca_fake_port_event(fx->fake, base + i, &port, &event);
		KUNIT_EXPECT_EQ_MSG(test, port, (unsigned int)posted[i].port, "event %u", i);
		KUNIT_EXPECT_EQ_MSG(test, event, (unsigned int)posted[i].subtype, "event %u", i);
	}
}

static void ports_bad_events_ignored(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned int base, warnings;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	base = vhca_fake_num_port_events(fx->fake);
	warnings = vhca_fake_warnings();
	/* Port 0, port 3 of a 2-port device, an unknown subtype. */
	KUNIT_ASSERT_EQ(test, vhca_fake_post_port_event(fx->fake, 0,
			VHCA_PORT_EV_ACTIVE, VHCA_PORT_ACTIVE, 2), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_post_port_event(fx->fake, 3,
			VHCA_PORT_EV_ACTIVE, VHCA_PORT_ACTIVE, 2), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_post_port_event(fx->fake, 1, 0x7f,
			VHCA_PORT_ACTIVE, 2), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_wait_consumed(fx->fake, 0, KT_WAIT_MS), 0);
	KUNIT_EXPECT_EQ(test, vhca_fake_num_port_events(fx->fake), base);
	KUNIT_EXPECT_EQ(test, vhca_fake_warnings() - warnings, 3u);
}

static void ports_replay_and_query(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	struct vhca_port_attr attr;
	unsigned int base, port, event;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	vhca_fake_set_port(fx->fake, 1, VHCA_PORT_DOWN, 0);
	vhca_fake_set_port(fx->fake, 2, VHCA_PORT_ACTIVE, 9);
	base = vhca_fake_num_port_events(fx->fake);
	KUNIT_ASSERT_EQ(test, vhca_core_replay_port_events(fx->core), 0);
	KUNIT_ASSERT_EQ(test, vhca_fake_num_port_events(fx->fake) - base, 1u);
	vhca_fake_port_event(fx->fake, base, &port, &event);
	KUNIT_EXPECT_EQ(test, port, 2u);
	KUNIT_EXPECT_EQ(test, event, (unsigned int)VHCA_PORT_EV_ACTIVE);
	KUNIT_EXPECT_EQ(test, vhca_core_query_port(fx->core, 2, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.lid, 9);
	KUNIT_EXPECT_EQ(test, vhca_core_query_port(fx->core, 1, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.state, VHCA_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, vhca_core_query_port(fx->core, 0, &attr), -VHCA_EINVAL);
	KUNIT_EXPECT_EQ(test, vhca_core_query_port(fx->core, 3, &attr), -VHCA_EINVAL);
}

static struct kunit_case ports_cases[] = {
	KUNIT_CASE(ports_event_dispatch),
	KUNIT_CASE(ports_bad_events_ignored),
	KUNIT_CASE(ports_replay_and_query),
	{}
};

static struct kunit_suite ports_suite = {
	.name = "vhca_ports",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = ports_cases,
};

/* ======================= vhca_alloc_fail ======================= */

/* Bring-up (create + start) with allocation n failing, for every n it
 * makes: it must fail cleanly (an error, the device reset, nothing left
 * allocated: the fixture's count here, kmemleak and KASAN in the guest),
 * and succeed once n is past its last allocation. */
static void alloc_fail_every_bring_up_step(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);
	unsigned long long total, n;
	int err;

	KUNIT_ASSERT_EQ(test, kt_create_and_start(test, 3), 0);
	total = vhca_fake_allocations();
	kt_stop_and_destroy(test);
	KUNIT_ASSERT_GT(test, total, 3ull);
	KUNIT_ASSERT_EQ(test, vhca_fake_outstanding(), 0LL);

	for (n = 1; n <= total + 1; n++) {
		vhca_fake_destroy(fx->fake);
		fx->fake = vhca_fake_create(NULL);
		KUNIT_ASSERT_NOT_NULL(test, fx->fake);
		vhca_fake_kernel_reset();
		vhca_fake_fail_allocation(n);
		err = kt_create_and_start(test, 3);
		if (n <= total)
			KUNIT_EXPECT_LT_MSG(test, err, 0,
					    "bring-up succeeded with allocation %llu of %llu failing",
					    n, total);
		else
			KUNIT_EXPECT_EQ(test, err, 0);
		kt_stop_and_destroy(test);
		KUNIT_EXPECT_EQ_MSG(test, vhca_fake_outstanding(), 0LL,
				    "leak after allocation %llu failed", n);
		KUNIT_EXPECT_FALSE_MSG(test, vhca_fake_enabled(fx->fake),
				       "device enabled after allocation %llu failed", n);
		KUNIT_EXPECT_EQ(test, vhca_fake_protocol_errors(fx->fake), 0u);
	}
}

/* The very first allocation fails: -ENOMEM reaches the caller. */
static void alloc_fail_create_reports_enomem(struct kunit *test)
{
	struct kt_fixture *fx = kt(test);

	vhca_fake_fail_allocation(1);
	KUNIT_EXPECT_EQ(test, vhca_core_create(vhca_fake_kdev(fx->fake), &fx->core),
			-VHCA_ENOMEM);
	fx->core = NULL;
	KUNIT_EXPECT_EQ(test, vhca_fake_outstanding(), 0LL);
}

static struct kunit_case alloc_fail_cases[] = {
	KUNIT_CASE(alloc_fail_create_reports_enomem),
	KUNIT_CASE(alloc_fail_every_bring_up_step),
	{}
};

static struct kunit_suite alloc_fail_suite = {
	.name = "vhca_alloc_fail",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = alloc_fail_cases,
};

kunit_test_suites(&cmdq_suite, &eq_suite, &ring_suite, &pd_suite, &ports_suite,
		  &alloc_fail_suite);

MODULE_DESCRIPTION("KUnit tests of the vhca driver core");
MODULE_LICENSE("Dual BSD/GPL");
