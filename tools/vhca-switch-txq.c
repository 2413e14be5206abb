/*
 * vhca-switch - the output queue of a switch port (Documentation/
 * fabric.md "A port that does not read").
 *
 * The switch is one thread.  It used to write each frame to the port's
 * socket with blocking writes, so a QEMU that stopped reading its cable
 * (stopped from QMP, held in gdb, starved by the host) stopped the whole
 * switch once the socket's buffer was full: every other port, the SM and
 * its SA too.  A hardware switch keeps one output queue per port and
 * holds a packet no longer than the switch lifetime, SwitchInfo:
 * LifeTimeValue, 4.096 us * 2^LifeTimeValue (IBA 18.2.5.4; values 20 and
 * above disable the limit, as opensm's packet_life_time documents); what
 * it discards counts in the port's PortXmitDiscards (IBA 16.1.3.5).
 *
 * So every socket is non-blocking; a frame that cannot be written at once
 * waits in its port's queue, which the main loop drains when poll() says
 * the socket takes more (POLLOUT).  A frame that waited longer than the
 * lifetime is discarded before its first byte is written, and so is one
 * that arrives while SW_TXQ_MAX_BYTES already wait (the buffer of the
 * port is full).  A frame whose first bytes are on the wire is always
 * finished: the stream framing cannot lose half a frame.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vhca-bytes.h"
#include "vhca-switch.h"

#include <errno.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#define SW_TXQ_MAX_BYTES    (16u << 20)     /* one port's output buffer */
#define SW_LIFETIME_OFF     20              /* LifeTimeValue: no limit */

/* A frame in a port's output queue: its stream length, then the frame. */
struct SwTxFrame {
    SwTxFrame *next;
    int64_t queued_ms;
    uint32_t len;               /* bytes in data: 4 + the frame's */
    uint32_t sent;              /* bytes of data already written */
    uint8_t data[];
};

/* The switch lifetime (IBA 18.2.5.4) in ms, -1: no limit. */
static int64_t sw_lifetime_ms(void)
{
    uint8_t v = sw_node.life_time;

    if (v >= SW_LIFETIME_OFF) {
        return -1;
    }
    return (int64_t)((4096ull << v) / 1000000);     /* 4.096 us * 2^v */
}

/* The frame has left through p: count it (PMA, --verbose stats). */
static void sw_txq_sent(SwPort *p, const uint8_t *frame, uint32_t len)
{
    VhcaWireFrame f;

    p->tx_frames++;
    if (!vhca_wire_parse(frame, len, &f)) {
        sw_count(p, &f, false);
    }
}

/* The port's buffer or the lifetime discarded a frame (PortXmitDiscards). */
static void sw_txq_discard(SwPort *p, const char *why)
{
    p->drops++;
    p->counters.xmit_discards++;
    sw_log("port %d: frame discarded (%s)\n", p->num, why);
}

/* Drop the frames at the head that outlived the switch lifetime. */
static void sw_txq_expire(SwPort *p, int64_t now_ms)
{
    int64_t life = sw_lifetime_ms();
    SwTxFrame *f;

    while (life >= 0 && (f = p->txq) && !f->sent &&
           now_ms - f->queued_ms > life) {
        p->txq = f->next;
        p->txq_bytes -= f->len;
        free(f);
        sw_txq_discard(p, "switch lifetime");
    }
    if (!p->txq) {
        p->txq_tail = &p->txq;
    }
}

/* Write what the socket takes; false: the connection failed. */
static bool sw_txq_write(SwPort *p)
{
    SwTxFrame *f;
    ssize_t n;

    while ((f = p->txq)) {
        n = write(p->fd, f->data + f->sent, f->len - f->sent);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        }
        if (n <= 0) {
            return false;
        }
        f->sent += (uint32_t)n;
        if (f->sent < f->len) {
            continue;
        }
        p->txq = f->next;
        p->txq_bytes -= f->len;
        sw_txq_sent(p, f->data + 4, f->len - 4);
        free(f);
    }
    p->txq_tail = &p->txq;
    return true;
}

/* Put [written, 4 + len) of the framed frame into the queue. */
static void sw_txq_append(SwPort *p, const uint8_t be[4], const uint8_t *frame,
                          uint32_t len, uint32_t written, int64_t now_ms)
{
    SwTxFrame *f;

    if (p->txq_bytes + 4 + len > SW_TXQ_MAX_BYTES && !written) {
        sw_txq_discard(p, "output buffer full");
        return;
    }
    f = malloc(sizeof(*f) + 4 + len);
    if (!f) {
        if (written) {
            sw_disconnect(p, "out of memory mid-frame");
        } else {
            sw_txq_discard(p, "out of memory");
        }
        return;
    }
    memcpy(f->data, be, 4);
    memcpy(f->data + 4, frame, len);
    f->next = NULL;
    f->queued_ms = now_ms;
    f->len = 4 + len;
    f->sent = written;
    *p->txq_tail = f;
    p->txq_tail = &f->next;
    p->txq_bytes += f->len;
}

void sw_send(SwPort *p, const uint8_t *frame, uint32_t len)
{
    int64_t now_ms = sw_now_ms();
    struct iovec iov[2];
    uint8_t be[4];
    ssize_t n = 0;

    if (p->fd < 0) {
        return;
    }
    if (p->capture) {
        sw_capture_tx(p, frame, len);
    }
    vhca_put_be32(be, len);
    sw_txq_expire(p, now_ms);
    if (!p->txq) {
        /* The usual case: the socket takes it now, nothing is queued. */
        iov[0] = (struct iovec){ be, 4 };
        iov[1] = (struct iovec){ (void *)frame, len };
        do {
            n = writev(p->fd, iov, 2);
        } while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            sw_disconnect(p, strerror(errno));
            return;
        }
        if (n == 4 + (ssize_t)len) {
            sw_txq_sent(p, frame, len);
            return;
        }
        n = MAX(n, 0);
    }
    sw_txq_append(p, be, frame, len, (uint32_t)n, now_ms);
}

bool sw_txq_pending(const SwPort *p)
{
    return p->txq != NULL;
}

void sw_txq_drain(SwPort *p)
{
    sw_txq_expire(p, sw_now_ms());
    if (!sw_txq_write(p)) {
        sw_disconnect(p, strerror(errno));
    }
}

int sw_txq_tick(SwPort *ports, int nports)
{
    int64_t now_ms = sw_now_ms(), life = sw_lifetime_ms(), due;
    int i, timeout = -1;

    for (i = 0; i < nports && life >= 0; i++) {
        SwPort *p = &ports[i];

        sw_txq_expire(p, now_ms);
        if (!p->txq || p->txq->sent) {
            continue;       /* a frame half written is finished, not aged */
        }
        due = MAX(p->txq->queued_ms + life + 1 - now_ms, 0);
        if (timeout < 0 || due < timeout) {
            timeout = (int)MIN(due, INT_MAX);
        }
    }
    return timeout;
}

void sw_txq_clear(SwPort *p)
{
    SwTxFrame *f;

    while ((f = p->txq)) {
        p->txq = f->next;
        free(f);
    }
    p->txq_tail = &p->txq;
    p->txq_bytes = 0;
}
