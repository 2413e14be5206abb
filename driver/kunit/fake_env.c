// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The environment of the fake device (driver/fake/fake_env.h) in
 * vhca_kunit.ko (kunit_fake.h explains it), and the MMIO, interrupt and
 * port event services of vhca_kapi.h that reach the device.
 */
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "fake_internal.h"

struct fake_vector {
	struct irq_work work;
	struct vhca_fake_env *env;
	unsigned int index;
};

struct vhca_fake_env {
	struct vhca_kapi_device kdev;
	struct vhca_fake *fake;
	spinlock_t lock;		/* the device's model (fake_env.h) */
	struct work_struct bottom_half;
	struct fake_vector vectors[VHCA_MAX_VECTORS];
	bool quiesced;
	spinlock_t events_lock;		/* events, num_events */
	struct { u8 port, event; } events[VHCA_FAKE_EVENT_LOG];
	unsigned int num_events;
};

/* ---- fake_env.h ---- */

unsigned long vhca_fake_env_lock(struct vhca_fake_env *env)
{
	unsigned long flags;

	spin_lock_irqsave(&env->lock, flags);
	return flags;
}

void vhca_fake_env_unlock(struct vhca_fake_env *env, unsigned long flags)
{
	spin_unlock_irqrestore(&env->lock, flags);
}

void vhca_fake_env_kick(struct vhca_fake_env *env)
{
	if (!READ_ONCE(env->quiesced))
		schedule_work(&env->bottom_half);
}

void vhca_fake_env_raise(struct vhca_fake_env *env, unsigned int vector)
{
	if (vector < VHCA_MAX_VECTORS && !READ_ONCE(env->quiesced))
		irq_work_queue(&env->vectors[vector].work);
}

/* Already in hard-IRQ context: fake_interrupt() is an irq_work. */
void vhca_fake_env_irq_handler(struct vhca_fake_env *env,
			       struct vhca_core_device *core,
			       unsigned int vector)
{
	vhca_core_irq(core, vector);
}

int vhca_fake_env_dma_live(struct vhca_fake_env *env, unsigned long long addr,
			   size_t len)
{
	return vhca_fake_dma_live(addr, len);
}

void vhca_fake_env_report(struct vhca_fake_env *env, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	printk(KERN_INFO "vhca_kunit fake device: protocol error: %pV\n", &vaf);
	va_end(args);
}

/* ---- the bottom half and the vectors ---- */

static void fake_bottom_half(struct work_struct *work)
{
	struct vhca_fake_env *env = container_of(work, struct vhca_fake_env,
						 bottom_half);

	vhca_fake_run_commands(env->fake);
}

/* MSI-X vector `index` fires: the core's interrupt handler, in hard-IRQ
 * context (irq_work's self-IPI), like the shim's request_irq handler. */
static void fake_interrupt(struct irq_work *work)
{
	struct fake_vector *vector = container_of(work, struct fake_vector, work);

	vhca_fake_deliver_irq(vector->env->fake, vector->index);
}

/* ---- vhca_kapi.h: MMIO, interrupts, port events ---- */

struct vhca_fake *vhca_fake_of(struct vhca_kapi_device *kdev)
{
	return kdev->env->fake;
}

unsigned int vhca_kapi_reg_read32(struct vhca_kapi_device *kdev,
				  unsigned int offset)
{
	return vhca_fake_reg_read32(vhca_fake_of(kdev), offset);
}

void vhca_kapi_reg_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			   unsigned int value)
{
	vhca_fake_reg_write32(vhca_fake_of(kdev), offset, value);
}

void vhca_kapi_db_write32(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned int value)
{
	vhca_fake_db_write32(vhca_fake_of(kdev), offset, value);
}

void vhca_kapi_db_write64(struct vhca_kapi_device *kdev, unsigned int offset,
			  unsigned long long value)
{
	vhca_fake_db_write64(vhca_fake_of(kdev), offset, value);
}

void vhca_fake_sync_vector(struct vhca_kapi_device *kdev, unsigned int vector)
{
	might_sleep();
	if (vector < VHCA_MAX_VECTORS)
		irq_work_sync(&kdev->env->vectors[vector].work);
}

void vhca_kapi_port_event(struct vhca_kapi_device *kdev, unsigned int port,
			  unsigned int event)
{
	struct vhca_fake_env *env = kdev->env;
	unsigned long flags;

	spin_lock_irqsave(&env->events_lock, flags);
	if (env->num_events < VHCA_FAKE_EVENT_LOG) {
		env->events[env->num_events].port = port;
		env->events[env->num_events].event = event;
	}
	env->num_events++;
	spin_unlock_irqrestore(&env->events_lock, flags);
}

/* ---- kunit_fake.h ---- */

struct vhca_fake *vhca_fake_create(const struct vhca_fake_config *config)
{
	struct vhca_fake_env *env = kzalloc(sizeof(*env), GFP_KERNEL);
	void *memory;
	unsigned int v;

	if (!env)
		return NULL;
	/* The device's fixed tables: a few hundred KiB. */
	memory = kvzalloc(vhca_fake_size(), GFP_KERNEL);
	if (!memory) {
		kfree(env);
		return NULL;
	}
	env->kdev.env = env;
	spin_lock_init(&env->lock);
	spin_lock_init(&env->events_lock);
	INIT_WORK(&env->bottom_half, fake_bottom_half);
	for (v = 0; v < VHCA_MAX_VECTORS; v++) {
		init_irq_work(&env->vectors[v].work, fake_interrupt);
		env->vectors[v].env = env;
		env->vectors[v].index = v;
	}
	env->fake = vhca_fake_init(memory, env, config);
	return env->fake;
}

void vhca_fake_quiesce(struct vhca_fake *fake)
{
	struct vhca_fake_env *env = vhca_fake_env_of(fake);
	unsigned int v;

	WRITE_ONCE(env->quiesced, true);
	cancel_work_sync(&env->bottom_half);
	for (v = 0; v < VHCA_MAX_VECTORS; v++)
		irq_work_sync(&env->vectors[v].work);
	vhca_fake_set_core(fake, NULL);
}

void vhca_fake_destroy(struct vhca_fake *fake)
{
	struct vhca_fake_env *env;

	if (!fake)
		return;
	env = vhca_fake_env_of(fake);
	vhca_fake_quiesce(fake);
	/* The device is trivially destructible: its memory goes as is. */
	kvfree(fake);
	kfree(env);
}

struct vhca_kapi_device *vhca_fake_kdev(struct vhca_fake *fake)
{
	return &vhca_fake_env_of(fake)->kdev;
}

int vhca_fake_wait_consumed(struct vhca_fake *fake, unsigned int eqn,
			    unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);

	if (eqn >= VHCA_MAX_EQS)
		return -EINVAL;
	while (!vhca_fake_eq_idle(fake, eqn)) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		msleep(1);
	}
	return 0;
}

unsigned int vhca_fake_num_port_events(struct vhca_fake *fake)
{
	return READ_ONCE(vhca_fake_env_of(fake)->num_events);
}

void vhca_fake_port_event(struct vhca_fake *fake, unsigned int i,
			  unsigned int *port, unsigned int *event)
{
	struct vhca_fake_env *env = vhca_fake_env_of(fake);
	unsigned long flags;

	*port = *event = 0;
	spin_lock_irqsave(&env->events_lock, flags);
	if (i < VHCA_FAKE_EVENT_LOG && i < env->num_events) {
		*port = env->events[i].port;
		*event = env->events[i].event;
	}
	spin_unlock_irqrestore(&env->events_lock, flags);
}
