// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The fake vhca device of vhca_kunit.ko (fake_device.h explains the model).
 * Behaviour follows uapi/vhca_hw.h and Documentation/device.md: commands
 * run in order in a bottom half (a work item), each completes with a
 * CMD_DONE EQE on EQ 0, an EQ raises its vector once when armed, arming
 * with unconsumed entries fires at once, RESET forgets all queues.
 */
#include <linux/irq_work.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "fake_internal.h"

#define FAKE_MAX_FORCED		8
#define FAKE_MAX_HUNG		64
#define FAKE_MAX_PD		64

struct fake_eq {
	bool live;
	bool armed;
	u64 base;
	u32 log_size;
	u32 vector;
	u32 producer;	/* free running */
	u32 consumer;	/* last doorbell value (24 bits) */
};

struct fake_vector {
	struct irq_work work;
	struct vhca_fake *fake;
	unsigned int index;
};

struct vhca_fake {
	struct vhca_kapi_device kdev;
	struct vhca_fake_config config;
	spinlock_t lock;		/* everything below */
	struct work_struct bottom_half;
	struct fake_vector vectors[VHCA_MAX_VECTORS];
	struct vhca_core_device *core;
	bool quiesced;

	bool enabled, fatal;
	u8 fatal_code;
	unsigned int resets;
	u64 cmdq_base;
	u32 cmdq_log, cmdq_pi, cmdq_ci;
	struct fake_eq eqs[VHCA_MAX_EQS];
	struct { u8 state; u16 lid; } ports[VHCA_MAX_PORTS];
	DECLARE_BITMAP(pds, FAKE_MAX_PD + 1);

	bool hang;
	u32 hung[FAKE_MAX_HUNG];
	unsigned int num_hung;
	struct { u16 opcode; u8 status; bool used; } forced[FAKE_MAX_FORCED];

	struct vhca_cmd cmd_log[VHCA_FAKE_CMD_LOG];
	u32 cmd_slot[VHCA_FAKE_CMD_LOG];
	unsigned int num_executed;
	u32 db_log[VHCA_FAKE_DB_LOG];
	unsigned int num_doorbells;
	unsigned int irqs[VHCA_MAX_VECTORS];
	unsigned int protocol_errors;
	struct { u8 port, event; } events[VHCA_FAKE_EVENT_LOG];
	unsigned int num_events;
	struct vhca_node_desc node_desc;
};

static const u64 fake_node_guid = 0x5254000000001000ull;

static void fake_raise(struct vhca_fake *fake, int vector)
{
	if (vector >= 0 && !READ_ONCE(fake->quiesced))
		irq_work_queue(&fake->vectors[vector].work);
}

/* MSI-X vector `index` fires: the core's interrupt handler, in hard-IRQ
 * context (irq_work's self-IPI), like the shim's request_irq handler. */
static void fake_interrupt(struct irq_work *work)
{
	struct fake_vector *vector = container_of(work, struct fake_vector, work);
	struct vhca_fake *fake = vector->fake;
	struct vhca_core_device *core;
	unsigned long flags;

	spin_lock_irqsave(&fake->lock, flags);
	fake->irqs[vector->index]++;
	core = fake->core;
	spin_unlock_irqrestore(&fake->lock, flags);
	if (core)
		vhca_core_irq(core, vector->index);
}

void vhca_fake_sync_vector(struct vhca_fake *fake, unsigned int vector)
{
	might_sleep();
	if (vector < VHCA_MAX_VECTORS)
		irq_work_sync(&fake->vectors[vector].work);
}

/* Under fake->lock: writes the EQE.  Returns the vector to raise (-1 for
 * none); *err is 0, -EINVAL (no such EQ), -ENOSPC (full) or -EFAULT. */
static int fake_post_locked(struct vhca_fake *fake, u32 eqn,
			    const struct vhca_eqe *eqe, int *err)
{
	struct fake_eq *eq = eqn < VHCA_MAX_EQS ? &fake->eqs[eqn] : NULL;
	struct vhca_eqe *slot;
	u32 size;

	*err = 0;
	if (!eq || !eq->live) {
		*err = -EINVAL;
		return -1;
	}
	size = 1u << eq->log_size;
	if (eq->producer - eq->consumer >= size) {
		*err = -ENOSPC;
		return -1;
	}
	if (!vhca_fake_dma_live(eq->base, sizeof(*eqe) << eq->log_size)) {
		fake->protocol_errors++;
		*err = -EFAULT;
		return -1;
	}
	slot = (struct vhca_eqe *)(uintptr_t)eq->base + (eq->producer & (size - 1));
	/* The 31 leading bytes first, the owner byte last. */
	memcpy(slot, eqe, offsetof(struct vhca_eqe, owner));
	smp_wmb();
	WRITE_ONCE(slot->owner, vhca_eqe_owner(eq->producer, eq->log_size));
	eq->producer++;
	if (!eq->armed)
		return -1;
	eq->armed = false;
	return eq->vector;
}

static bool fake_write_out(struct vhca_fake *fake, const struct vhca_cmd *cmd,
			   const void *data, u32 size)
{
	if (cmd->out_len < size)
		return false;
	if (!vhca_fake_dma_live(cmd->out_addr, size)) {
		fake->protocol_errors++;
		return false;
	}
	memcpy((void *)(uintptr_t)cmd->out_addr, data, size);
	return true;
}

static u8 fake_query_device(struct vhca_fake *fake, const struct vhca_cmd *cmd)
{
	struct vhca_device_attr attr = {};

	attr.node_guid = fake_node_guid;
	attr.sys_image_guid = fake_node_guid;
	attr.fw_version = (1ull << 32) | (2ull << 16) | 3;
	attr.vendor_id = 0x1af4;
	attr.vendor_part_id = 0x10f0;
	attr.num_ports = fake->config.num_ports;
	attr.num_vectors = fake->config.num_vectors;
	attr.max_eq = fake->config.num_vectors;
	attr.max_pd = fake->config.max_pd;
	return fake_write_out(fake, cmd, &attr, sizeof(attr)) ?
	       VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
}

static u8 fake_query_port(struct vhca_fake *fake, const struct vhca_cmd *cmd)
{
	unsigned int port = cmd->in.port.port;
	struct vhca_port_attr attr = {};

	if (port < 1 || port > fake->config.num_ports)
		return VHCA_CMD_BAD_PARAM;
	attr.state = fake->ports[port - 1].state;
	attr.phys_state = attr.state == VHCA_PORT_DOWN ? VHCA_PHYS_DISABLED :
							 VHCA_PHYS_LINK_UP;
	attr.lid = fake->ports[port - 1].lid;
	attr.sm_lid = 1;
	attr.gid_tbl_len = VHCA_GID_TABLE_LEN;
	attr.pkey_tbl_len = VHCA_PKEY_TABLE_LEN;
	attr.port_guid = fake_node_guid + port;
	return fake_write_out(fake, cmd, &attr, sizeof(attr)) ?
	       VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
}

static u8 fake_query_gid(struct vhca_fake *fake, const struct vhca_cmd *cmd)
{
	unsigned int port = cmd->in.table.port, index = cmd->in.table.index;
	struct vhca_gid gid = {};
	int i;

	if (port < 1 || port > fake->config.num_ports ||
	    index >= VHCA_GID_TABLE_LEN)
		return VHCA_CMD_BAD_PARAM;
	if (index == 0) {
		u64 prefix = VHCA_GID_PREFIX_DEFAULT, guid = fake_node_guid + port;

		for (i = 0; i < 8; i++) {
			gid.raw[i] = (u8)(prefix >> (56 - 8 * i));
			gid.raw[8 + i] = (u8)(guid >> (56 - 8 * i));
		}
	}
	return fake_write_out(fake, cmd, &gid, sizeof(gid)) ?
	       VHCA_CMD_OK : VHCA_CMD_BAD_SIZE;
}

static u8 fake_create_eq(struct vhca_fake *fake, const struct vhca_cmd *cmd,
			 u32 result[2])
{
	const struct vhca_cmd_create_eq_in *in = &cmd->in.create_eq;
	u32 eqn;

	if (in->vector < 1 || in->vector >= fake->config.num_vectors ||
	    in->log_size < VHCA_MIN_LOG_EQ || in->log_size > VHCA_MAX_LOG_EQ ||
	    in->base % VHCA_QUEUE_ALIGN)
		return VHCA_CMD_BAD_PARAM;
	if (!vhca_fake_dma_live(in->base, sizeof(struct vhca_eqe) << in->log_size)) {
		fake->protocol_errors++;
		return VHCA_CMD_BAD_ADDR;
	}
	for (eqn = 1; eqn < VHCA_MAX_EQS; eqn++) {
		struct fake_eq *eq = &fake->eqs[eqn];

		if (eq->live)
			continue;
		memset(eq, 0, sizeof(*eq));
		eq->live = true;
		eq->base = in->base;
		eq->log_size = in->log_size;
		eq->vector = in->vector;
		result[0] = eqn;
		return VHCA_CMD_OK;
	}
	return VHCA_CMD_NO_RESOURCES;
}

static u8 fake_execute(struct vhca_fake *fake, const struct vhca_cmd *cmd,
		       u32 result[2])
{
	u32 handle = cmd->in.handle.handle;
	unsigned int port = cmd->in.table.port;

	if (cmd->flags)
		fake->protocol_errors++;
	switch (cmd->opcode) {
	case VHCA_CMD_QUERY_DEVICE:
		return fake_query_device(fake, cmd);
	case VHCA_CMD_QUERY_PORT:
		return fake_query_port(fake, cmd);
	case VHCA_CMD_QUERY_GID:
		return fake_query_gid(fake, cmd);
	case VHCA_CMD_QUERY_PKEY:
		if (port < 1 || port > fake->config.num_ports ||
		    cmd->in.table.index >= VHCA_PKEY_TABLE_LEN)
			return VHCA_CMD_BAD_PARAM;
		result[0] = cmd->in.table.index == 0 ? VHCA_DEFAULT_PKEY : 0;
		return VHCA_CMD_OK;
	case VHCA_CMD_SET_NODE_DESC:
		if (cmd->in_len != sizeof(fake->node_desc))
			return VHCA_CMD_BAD_SIZE;
		if (!vhca_fake_dma_live(cmd->in_addr, cmd->in_len)) {
			fake->protocol_errors++;
			return VHCA_CMD_BAD_ADDR;
		}
		memcpy(&fake->node_desc, (void *)(uintptr_t)cmd->in_addr,
		       sizeof(fake->node_desc));
		return VHCA_CMD_OK;
	case VHCA_CMD_CREATE_EQ:
		return fake_create_eq(fake, cmd, result);
	case VHCA_CMD_DESTROY_EQ:
		if (handle == 0 || handle >= VHCA_MAX_EQS || !fake->eqs[handle].live)
			return VHCA_CMD_BAD_HANDLE;
		memset(&fake->eqs[handle], 0, sizeof(fake->eqs[handle]));
		return VHCA_CMD_OK;
	case VHCA_CMD_ALLOC_PD: {
		u32 pdn = find_next_zero_bit(fake->pds, fake->config.max_pd + 1, 1);

		if (pdn > fake->config.max_pd)
			return VHCA_CMD_NO_RESOURCES;
		__set_bit(pdn, fake->pds);
		result[0] = pdn;
		return VHCA_CMD_OK;
	}
	case VHCA_CMD_DEALLOC_PD:
		if (handle < 1 || handle > fake->config.max_pd ||
		    !__test_and_clear_bit(handle, fake->pds))
			return VHCA_CMD_BAD_HANDLE;
		return VHCA_CMD_OK;
	default:
		return VHCA_CMD_BAD_OPCODE;
	}
}

/* Under fake->lock: consume one command; returns the vector to raise. */
static int fake_execute_one(struct vhca_fake *fake)
{
	u32 size = 1u << fake->cmdq_log, slot = fake->cmdq_ci & (size - 1);
	struct vhca_eqe event = {};
	u32 result[2] = { 0, 0 };
	struct vhca_cmd cmd;
	unsigned int i;
	int err;

	fake->cmdq_ci++;
	if (!vhca_fake_dma_live(fake->cmdq_base, sizeof(cmd) * size)) {
		fake->protocol_errors++;
		return -1;
	}
	memcpy(&cmd, (struct vhca_cmd *)(uintptr_t)fake->cmdq_base + slot,
	       sizeof(cmd));
	fake->cmd_log[fake->num_executed % VHCA_FAKE_CMD_LOG] = cmd;
	fake->cmd_slot[fake->num_executed % VHCA_FAKE_CMD_LOG] = slot;
	fake->num_executed++;
	if (fake->hang) {
		if (fake->num_hung < FAKE_MAX_HUNG)
			fake->hung[fake->num_hung++] = cmd.token;
		return -1;
	}
	event.type = VHCA_EQE_CMD_DONE;
	event.data.cmd_done.token = cmd.token;
	event.data.cmd_done.status = fake_execute(fake, &cmd, result);
	for (i = 0; i < FAKE_MAX_FORCED; i++)
		if (fake->forced[i].used && fake->forced[i].opcode == cmd.opcode)
			event.data.cmd_done.status = fake->forced[i].status;
	event.data.cmd_done.result[0] = result[0];
	event.data.cmd_done.result[1] = result[1];
	return fake_post_locked(fake, 0, &event, &err);
}

static void fake_bottom_half(struct work_struct *work)
{
	struct vhca_fake *fake = container_of(work, struct vhca_fake, bottom_half);
	unsigned long flags;
	int vector;

	for (;;) {
		spin_lock_irqsave(&fake->lock, flags);
		if (!fake->enabled || fake->cmdq_ci == fake->cmdq_pi) {
			spin_unlock_irqrestore(&fake->lock, flags);
			return;
		}
		vector = fake_execute_one(fake);
		spin_unlock_irqrestore(&fake->lock, flags);
		fake_raise(fake, vector);
	}
}

/* ---- MMIO: the kapi functions the core calls ---- */

unsigned int vhca_kapi_reg_read32(struct vhca_kapi_device *kdev,
				  unsigned int offset)
{
	struct vhca_fake *fake = kdev->fake;
	unsigned long flags;
	u32 value = 0;

	spin_lock_irqsave(&fake->lock, flags);
	switch (offset) {
	case VHCA_REG_VERSION:
		value = fake->config.version;
		break;
	case VHCA_REG_CAPS:
		value = fake->config.num_ports | (fake->config.num_vectors << 8) |
			(VHCA_MAX_LOG_CMDQ << 16) | (VHCA_MAX_LOG_EQ << 24);
		break;
	case VHCA_REG_DB_PAGES:
		value = 16;
		break;
	case VHCA_REG_STATUS:
		value = (fake->enabled ? VHCA_STATUS_ENABLED : 0) |
			(fake->fatal ? VHCA_STATUS_FATAL : 0) |
			((u32)fake->fatal_code << 8);
		break;
	case VHCA_REG_CMDQ_CI:
		value = fake->cmdq_ci;
		break;
	}
	spin_unlock_irqrestore(&fake->lock, flags);
	return value;
}

static void fake_reset_locked(struct vhca_fake *fake)
{
	fake->resets++;
	fake->enabled = fake->fatal = false;
	fake->fatal_code = 0;
	fake->cmdq_base = 0;
	fake->cmdq_log = fake->cmdq_pi = fake->cmdq_ci = 0;
	memset(fake->eqs, 0, sizeof(fake->eqs));
	bitmap_zero(fake->pds, FAKE_MAX_PD + 1);
	fake->num_hung = 0;
}

static void fake_enable_locked(struct vhca_fake *fake)
{
	struct fake_eq *eq0 = &fake->eqs[0];

	if (fake->config.fail_enable || !fake->cmdq_base ||
	    fake->cmdq_base % VHCA_QUEUE_ALIGN ||
	    fake->cmdq_log < VHCA_MIN_LOG_CMDQ ||
	    fake->cmdq_log > VHCA_MAX_LOG_CMDQ ||
	    !vhca_fake_dma_live(fake->cmdq_base,
				sizeof(struct vhca_cmd) << fake->cmdq_log)) {
		fake->fatal = true;
		fake->fatal_code = VHCA_FATAL_BAD_CMDQ_CONFIG;
		return;
	}
	if (!eq0->base || eq0->base % VHCA_QUEUE_ALIGN ||
	    eq0->log_size < VHCA_MIN_LOG_EQ || eq0->log_size > VHCA_MAX_LOG_EQ ||
	    !vhca_fake_dma_live(eq0->base,
				sizeof(struct vhca_eqe) << eq0->log_size)) {
		fake->fatal = true;
		fake->fatal_code = VHCA_FATAL_BAD_EQ0_CONFIG;
		return;
	}
	eq0->live = true;
	fake->enabled = true;
}

static void set_low(u64 *value, u32 low)
{
	*value = (*value & ~0xffffffffull) | low;
}

static void set_high(u64 *value, u32 high)
{
	*value = (*value & 0xffffffffull) | ((u64)high << 32);
}

void vhca_kapi_reg_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			   unsigned int value)
{
	struct vhca_fake *fake = kdev->fake;
	unsigned long flags;
	bool writable;

	spin_lock_irqsave(&fake->lock, flags);
	writable = !fake->enabled;
	switch (offset) {
	case VHCA_REG_CONTROL:
		if (value & VHCA_CONTROL_RESET)
			fake_reset_locked(fake);
		if (value & VHCA_CONTROL_ENABLE)
			fake_enable_locked(fake);
		break;
	case VHCA_REG_CMDQ_BASE_LO:
		if (writable)
			set_low(&fake->cmdq_base, value);
		break;
	case VHCA_REG_CMDQ_BASE_HI:
		if (writable)
			set_high(&fake->cmdq_base, value);
		break;
	case VHCA_REG_CMDQ_LOG_SIZE:
		if (writable)
			fake->cmdq_log = value;
		break;
	case VHCA_REG_EQ0_BASE_LO:
		if (writable)
			set_low(&fake->eqs[0].base, value);
		break;
	case VHCA_REG_EQ0_BASE_HI:
		if (writable)
			set_high(&fake->eqs[0].base, value);
		break;
	case VHCA_REG_EQ0_LOG_SIZE:
		if (writable)
			fake->eqs[0].log_size = value;
		break;
	default:
		fake->protocol_errors++;	/* read-only or unknown register */
		break;
	}
	spin_unlock_irqrestore(&fake->lock, flags);
}

void vhca_kapi_db_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned int value)
{
	struct vhca_fake *fake = kdev->fake;
	unsigned long flags;
	struct fake_eq *eq;
	int vector = -1;
	u32 eqn;

	spin_lock_irqsave(&fake->lock, flags);
	if (offset == VHCA_DB_CMDQ_PI) {
		if (value - fake->cmdq_ci > (1u << fake->cmdq_log))
			fake->protocol_errors++;	/* ring overrun */
		fake->cmdq_pi = value;
		if (fake->enabled)
			schedule_work(&fake->bottom_half);
		goto out;
	}
	fake->db_log[fake->num_doorbells % VHCA_FAKE_DB_LOG] = value;
	fake->num_doorbells++;
	eqn = (value >> VHCA_DB_EQ_EQN_SHIFT) & VHCA_DB_EQ_EQN_MASK;
	eq = eqn < VHCA_MAX_EQS ? &fake->eqs[eqn] : NULL;
	if (offset != VHCA_DB_EQ || !eq || !eq->live) {
		fake->protocol_errors++;
		goto out;
	}
	eq->consumer = value & VHCA_DB_EQ_CI_MASK;
	if (value & VHCA_DB_EQ_ARM) {
		eq->armed = true;
		/* Arming with unconsumed events fires at once. */
		if ((eq->producer & VHCA_DB_EQ_CI_MASK) != eq->consumer) {
			eq->armed = false;
			vector = eq->vector;
		}
	}
out:
	spin_unlock_irqrestore(&fake->lock, flags);
	fake_raise(fake, vector);
}

/* Data doorbells (QP/CQ/SRQ, vhca_hw_verbs.h) belong to objects this fake
 * device does not model: any use is a protocol error of the test. */
void vhca_kapi_db_write64(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned long long value)
{
	struct vhca_fake *fake = kdev->fake;
	unsigned long flags;

	spin_lock_irqsave(&fake->lock, flags);
	fake->protocol_errors++;
	spin_unlock_irqrestore(&fake->lock, flags);
}

void vhca_kapi_port_event(struct vhca_kapi_device *kdev, unsigned int port,
			  unsigned int event)
{
	struct vhca_fake *fake = kdev->fake;
	unsigned long flags;

	spin_lock_irqsave(&fake->lock, flags);
	if (fake->num_events < VHCA_FAKE_EVENT_LOG) {
		fake->events[fake->num_events].port = port;
		fake->events[fake->num_events].event = event;
	}
	fake->num_events++;
	spin_unlock_irqrestore(&fake->lock, flags);
}

/* ---- life cycle and test controls ---- */

struct vhca_fake *vhca_fake_create(const struct vhca_fake_config *config)
{
	struct vhca_fake *fake = kzalloc(sizeof(*fake), GFP_KERNEL);
	unsigned int v;

	if (!fake)
		return NULL;
	fake->kdev.fake = fake;
	fake->config.num_ports = 2;
	fake->config.num_vectors = 3;
	fake->config.max_pd = 8;
	fake->config.version = (VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR;
	if (config)
		fake->config = *config;
	fake->config.max_pd = min_t(unsigned int, fake->config.max_pd, FAKE_MAX_PD);
	spin_lock_init(&fake->lock);
	INIT_WORK(&fake->bottom_half, fake_bottom_half);
	for (v = 0; v < VHCA_MAX_VECTORS; v++) {
		init_irq_work(&fake->vectors[v].work, fake_interrupt);
		fake->vectors[v].fake = fake;
		fake->vectors[v].index = v;
	}
	for (v = 0; v < VHCA_MAX_PORTS; v++) {
		fake->ports[v].state = VHCA_PORT_ACTIVE;
		fake->ports[v].lid = 2 + v;
	}
	return fake;
}

void vhca_fake_quiesce(struct vhca_fake *fake)
{
	unsigned long flags;
	unsigned int v;

	WRITE_ONCE(fake->quiesced, true);
	cancel_work_sync(&fake->bottom_half);
	for (v = 0; v < VHCA_MAX_VECTORS; v++)
		irq_work_sync(&fake->vectors[v].work);
	spin_lock_irqsave(&fake->lock, flags);
	fake->core = NULL;
	spin_unlock_irqrestore(&fake->lock, flags);
}

void vhca_fake_destroy(struct vhca_fake *fake)
{
	if (!fake)
		return;
	vhca_fake_quiesce(fake);
	kfree(fake);
}

struct vhca_kapi_device *vhca_fake_kdev(struct vhca_fake *fake)
{
	return &fake->kdev;
}

void vhca_fake_set_core(struct vhca_fake *fake, struct vhca_core_device *core)
{
	unsigned long flags;

	spin_lock_irqsave(&fake->lock, flags);
	fake->core = core;
	spin_unlock_irqrestore(&fake->lock, flags);
}

void vhca_fake_set_hang(struct vhca_fake *fake, int hang)
{
	unsigned long flags;

	spin_lock_irqsave(&fake->lock, flags);
	fake->hang = hang;
	spin_unlock_irqrestore(&fake->lock, flags);
}

void vhca_fake_complete_hung(struct vhca_fake *fake)
{
	struct vhca_eqe event = {};
	unsigned long flags;
	unsigned int i;
	int vector = -1, v, err;

	spin_lock_irqsave(&fake->lock, flags);
	event.type = VHCA_EQE_CMD_DONE;
	for (i = 0; i < fake->num_hung; i++) {
		event.data.cmd_done.token = fake->hung[i];
		v = fake_post_locked(fake, 0, &event, &err);
		if (v >= 0)
			vector = v;
	}
	fake->num_hung = 0;
	spin_unlock_irqrestore(&fake->lock, flags);
	fake_raise(fake, vector);
}

void vhca_fake_force_status(struct vhca_fake *fake, unsigned int opcode,
			    int status)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&fake->lock, flags);
	for (i = 0; i < FAKE_MAX_FORCED; i++)
		if (fake->forced[i].used && fake->forced[i].opcode == opcode)
			fake->forced[i].used = false;
	for (i = 0; status >= 0 && i < FAKE_MAX_FORCED; i++) {
		if (fake->forced[i].used)
			continue;
		fake->forced[i].used = true;
		fake->forced[i].opcode = opcode;
		fake->forced[i].status = status;
		break;
	}
	spin_unlock_irqrestore(&fake->lock, flags);
}

void vhca_fake_set_port(struct vhca_fake *fake, unsigned int port,
			unsigned int state, unsigned int lid)
{
	unsigned long flags;

	if (port < 1 || port > VHCA_MAX_PORTS)
		return;
	spin_lock_irqsave(&fake->lock, flags);
	fake->ports[port - 1].state = state;
	fake->ports[port - 1].lid = lid;
	spin_unlock_irqrestore(&fake->lock, flags);
}

int vhca_fake_post_eqe(struct vhca_fake *fake, unsigned int eqn,
		       const struct vhca_eqe *eqe)
{
	unsigned long flags;
	int vector, err;

	spin_lock_irqsave(&fake->lock, flags);
	vector = fake_post_locked(fake, eqn, eqe, &err);
	spin_unlock_irqrestore(&fake->lock, flags);
	fake_raise(fake, vector);
	return err;
}

int vhca_fake_post_port_event(struct vhca_fake *fake, unsigned int port,
			      unsigned int subtype, unsigned int state,
			      unsigned int lid)
{
	struct vhca_eqe event = {};

	vhca_fake_set_port(fake, port, state, lid);
	event.type = VHCA_EQE_PORT_EVENT;
	event.subtype = subtype;
	event.data.port.port = port;
	event.data.port.state = state;
	event.data.port.lid = lid;
	return vhca_fake_post_eqe(fake, 0, &event);
}

int vhca_fake_wait_consumed(struct vhca_fake *fake, unsigned int eqn,
			    unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	unsigned long flags;
	bool done;

	if (eqn >= VHCA_MAX_EQS)
		return -EINVAL;
	for (;;) {
		spin_lock_irqsave(&fake->lock, flags);
		done = fake->eqs[eqn].live &&
		       (fake->eqs[eqn].producer & VHCA_DB_EQ_CI_MASK) ==
		       fake->eqs[eqn].consumer && fake->eqs[eqn].armed;
		spin_unlock_irqrestore(&fake->lock, flags);
		if (done)
			return 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		msleep(1);
	}
}

#define FAKE_GETTER(name, expr)						\
unsigned int vhca_fake_##name(struct vhca_fake *fake)			\
{									\
	unsigned long flags;						\
	unsigned int value;						\
									\
	spin_lock_irqsave(&fake->lock, flags);				\
	value = (expr);							\
	spin_unlock_irqrestore(&fake->lock, flags);			\
	return value;							\
}

FAKE_GETTER(resets, fake->resets)
FAKE_GETTER(cmdq_pi, fake->cmdq_pi)
FAKE_GETTER(cmdq_ci, fake->cmdq_ci)
FAKE_GETTER(cmdq_log, fake->cmdq_log)
FAKE_GETTER(num_executed, fake->num_executed)
FAKE_GETTER(num_eq_doorbells, fake->num_doorbells)
FAKE_GETTER(pds_allocated, bitmap_weight(fake->pds, FAKE_MAX_PD + 1))
FAKE_GETTER(protocol_errors, fake->protocol_errors)
FAKE_GETTER(num_port_events, fake->num_events)

int vhca_fake_enabled(struct vhca_fake *fake)
{
	return READ_ONCE(fake->enabled);
}

const struct vhca_cmd *vhca_fake_executed(struct vhca_fake *fake,
					  unsigned int i, unsigned int *slot)
{
	if (i >= fake->num_executed || fake->num_executed - i > VHCA_FAKE_CMD_LOG)
		return NULL;
	if (slot)
		*slot = fake->cmd_slot[i % VHCA_FAKE_CMD_LOG];
	return &fake->cmd_log[i % VHCA_FAKE_CMD_LOG];
}

unsigned int vhca_fake_count_opcode(struct vhca_fake *fake, unsigned int opcode)
{
	unsigned int i, first, n = 0;
	unsigned long flags;

	spin_lock_irqsave(&fake->lock, flags);
	first = fake->num_executed > VHCA_FAKE_CMD_LOG ?
		fake->num_executed - VHCA_FAKE_CMD_LOG : 0;
	for (i = first; i < fake->num_executed; i++)
		n += fake->cmd_log[i % VHCA_FAKE_CMD_LOG].opcode == opcode;
	spin_unlock_irqrestore(&fake->lock, flags);
	return n;
}

unsigned int vhca_fake_eq_doorbell(struct vhca_fake *fake, unsigned int i)
{
	return fake->db_log[i % VHCA_FAKE_DB_LOG];
}

unsigned int vhca_fake_eq_producer(struct vhca_fake *fake, unsigned int eqn)
{
	return eqn < VHCA_MAX_EQS ? READ_ONCE(fake->eqs[eqn].producer) : 0;
}

unsigned int vhca_fake_eq_log(struct vhca_fake *fake, unsigned int eqn)
{
	return eqn < VHCA_MAX_EQS ? READ_ONCE(fake->eqs[eqn].log_size) : 0;
}

int vhca_fake_eq_live(struct vhca_fake *fake, unsigned int eqn)
{
	return eqn < VHCA_MAX_EQS && READ_ONCE(fake->eqs[eqn].live);
}

unsigned int vhca_fake_irqs(struct vhca_fake *fake, unsigned int vector)
{
	return vector < VHCA_MAX_VECTORS ? READ_ONCE(fake->irqs[vector]) : 0;
}

void vhca_fake_port_event(struct vhca_fake *fake, unsigned int i,
			  unsigned int *port, unsigned int *event)
{
	*port = *event = 0;
	if (i < VHCA_FAKE_EVENT_LOG && i < READ_ONCE(fake->num_events)) {
		*port = fake->events[i].port;
		*event = fake->events[i].event;
	}
}
