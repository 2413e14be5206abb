// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * sync.c - spinlocks, semaphores, completions and sleeping for the core.
 * The core cannot know the size of spinlock_t & co. (it changes with
 * lockdep), so each object is allocated here and handed out opaque.
 * Objects come from vhca_kapi_zalloc() (mem.c in vhca.ko; in
 * vhca_kunit.ko, driver/kunit/kapi.c with allocation-failure injection),
 * so that KUnit uses this very file.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "vhca_kapi.h"

struct vhca_kapi_lock {
	spinlock_t lock;
};

struct vhca_kapi_sema {
	struct semaphore sema;
};

struct vhca_kapi_completion {
	struct completion done;
};

static struct lock_class_key vhca_lock_keys[VHCA_LOCK_CLASSES];
static const char *const vhca_lock_names[VHCA_LOCK_CLASSES] = {
	[VHCA_LOCK_COMMAND_QUEUE] = "vhca_command_queue",
	[VHCA_LOCK_COMPLETION_QUEUE] = "vhca_completion_queue",
	[VHCA_LOCK_SEND_QUEUE] = "vhca_send_queue",
	[VHCA_LOCK_RECEIVE_QUEUE] = "vhca_receive_queue",
	[VHCA_LOCK_SHARED_RECEIVE_QUEUE] = "vhca_shared_receive_queue",
};

struct vhca_kapi_lock *vhca_kapi_lock_create(enum vhca_kapi_lock_class cls)
{
	struct vhca_kapi_lock *lock;

	if (WARN_ON_ONCE(cls >= VHCA_LOCK_CLASSES))
		return NULL;
	lock = vhca_kapi_zalloc(sizeof(*lock));
	if (lock) {
		spin_lock_init(&lock->lock);
		lockdep_set_class_and_name(&lock->lock, &vhca_lock_keys[cls],
					   vhca_lock_names[cls]);
	}
	return lock;
}

void vhca_kapi_lock_destroy(struct vhca_kapi_lock *lock)
{
	vhca_kapi_free(lock);
}

unsigned long vhca_kapi_lock_irqsave(struct vhca_kapi_lock *lock)
{
	unsigned long flags;

	spin_lock_irqsave(&lock->lock, flags);
	return flags;
}

void vhca_kapi_unlock_irqrestore(struct vhca_kapi_lock *lock,
				 unsigned long flags)
{
	spin_unlock_irqrestore(&lock->lock, flags);
}

struct vhca_kapi_sema *vhca_kapi_sema_create(unsigned int count)
{
	struct vhca_kapi_sema *sema = vhca_kapi_zalloc(sizeof(*sema));

	if (sema)
		sema_init(&sema->sema, count);
	return sema;
}

void vhca_kapi_sema_destroy(struct vhca_kapi_sema *sema)
{
	vhca_kapi_free(sema);
}

void vhca_kapi_sema_down(struct vhca_kapi_sema *sema)
{
	down(&sema->sema);
}

void vhca_kapi_sema_up(struct vhca_kapi_sema *sema)
{
	up(&sema->sema);
}

struct vhca_kapi_completion *vhca_kapi_completion_create(void)
{
	struct vhca_kapi_completion *c = vhca_kapi_zalloc(sizeof(*c));

	if (c)
		init_completion(&c->done);
	return c;
}

void vhca_kapi_completion_destroy(struct vhca_kapi_completion *c)
{
	vhca_kapi_free(c);
}

void vhca_kapi_completion_reinit(struct vhca_kapi_completion *c)
{
	reinit_completion(&c->done);
}

void vhca_kapi_complete(struct vhca_kapi_completion *c)
{
	complete(&c->done);
}

int vhca_kapi_wait_timeout(struct vhca_kapi_completion *c,
			   unsigned int timeout_ms)
{
	if (!wait_for_completion_timeout(&c->done,
					 msecs_to_jiffies(timeout_ms)))
		return -ETIMEDOUT;
	return 0;
}

void vhca_kapi_msleep(unsigned int ms)
{
	msleep(ms);
}
