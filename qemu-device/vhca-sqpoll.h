/*
 * vhca - device-side polling of send doorbell records (vhca-sqpoll.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_SQPOLL_H
#define HW_INFINIBAND_VHCA_SQPOLL_H

typedef struct VhcaState VhcaState;
typedef struct VhcaSqPoller VhcaSqPoller;

/* Realize (sq-poll=on): start the polling thread; unrealize: stop it. */
void vhca_sqpoll_realize(VhcaState *s);
void vhca_sqpoll_unrealize(VhcaState *s);
/* QP slot (index in s->qps) with a send record created / freed: polled
 * from now on / no more.  BQL held; no-ops with sq-poll=off. */
void vhca_sqpoll_add(VhcaState *s, uint32_t slot);
void vhca_sqpoll_remove(VhcaState *s, uint32_t slot);
/* An SQ doorbell: the driver found the poller asleep; wake it up. */
void vhca_sqpoll_kick(VhcaState *s);

#endif
