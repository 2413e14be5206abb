/*
 * vhca-switch - link faults on demand, and the control socket that sets
 * them (Documentation/fabric-tests.md "Faults on demand").
 *
 * Every data frame the switch forwards (not HELLO/LINK) leaves through
 * sw_egress(), which applies the faults of the link it leaves by, in
 * percent: corruption (the frame is dropped as a receiver drops a packet
 * with a bad ICRC, and counted as such), loss, reordering (the frame is
 * held back and sent after the next frame to the same port) and
 * duplication; then the link's added delay (frames wait in a FIFO, so a
 * delay alone never reorders).  The choices come from a seeded xorshift
 * generator, so a run is repeatable.  A flap pulls a link's cable for a
 * while: the port's connection is closed, and a --connect port is dialled
 * again once the time is up (a listening port waits for its QEMU, which in
 * 7.2 does not reconnect: flap is refused there).
 *
 * The control socket (DIR/control with --dir) takes one line per
 * connection and answers one line:
 *   faults LOSS DUP REORDER CORRUPT        every link's rates (0..100)
 *   port N faults LOSS DUP REORDER CORRUPT one link's rates
 *   port N delay MS                        one link's added delay (0..10000)
 *   port N flap MS                         pull port N's cable for MS ms
 *   rule add RULE | del N | clear | seed N | list | trace
 *                                          fault rules per packet
 *                                          (vhca-switch-rules.c)
 *   stats                                  per port: rx tx drops lost dup
 *                                          reordered icrc delayed flaps
 *                                          queued (bytes in the output
 *                                          queue) discards (PortXmitDiscards)
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

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SW_MAX_FLAP_MS      60000

static uint64_t sw_seed = 0x9e3779b97f4a7c15ull;

void sw_faults_seed(uint64_t seed)
{
    sw_seed = seed ? seed : 0x9e3779b97f4a7c15ull;
}

int64_t sw_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sw_faults_send(void *opaque, const uint8_t *frame, uint32_t len)
{
    sw_send(opaque, frame, len);
}

/* Each link its own generator, from the switch's seed and the port. */
void sw_faults_init(SwPort *p)
{
    vhca_faults_init(&p->faults, sw_seed ^ ((uint64_t)p->num << 32),
                     sw_faults_send, p);
}

int sw_faults_tick(SwPort *ports, int nports)
{
    int64_t now = sw_now_ms(), next = -1, due;
    int i;

    for (i = 0; i < nports; i++) {
        due = vhca_faults_due(&ports[i].faults, now);
        if (due >= 0 && (next < 0 || due < next)) {
            next = due;
        }
    }
    return (int)next;
}

void sw_faults_link_down(SwPort *p)
{
    vhca_faults_flush(&p->faults);
}

void sw_egress(SwPort *p, const uint8_t *frame, uint32_t len)
{
    if (!sw_rules_egress(p, frame, len)) {
        vhca_faults_egress(&p->faults, frame, len, sw_now_ms());
    }
}

int sw_control_listen(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    if (strlen(path) >= sizeof(a.sun_path)) {
        fprintf(stderr, "vhca-switch: control socket path too long\n");
        exit(1);
    }
    strcpy(a.sun_path, path);
    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        listen(fd, 4) < 0) {
        perror("vhca-switch: control socket");
        exit(1);
    }
    return fd;
}

static void sw_control_stats(SwPort *ports, int nports, char *out,
                             size_t size)
{
    size_t used = 0;
    int i;

    for (i = 0; i < nports && used < size; i++) {
        SwPort *p = &ports[i];

        used += (size_t)snprintf(out + used, size - used,
                                 "port %d lid %u rx %" PRIu64 " tx %" PRIu64
                                 " drops %" PRIu64 " lost %" PRIu64
                                 " dup %" PRIu64 " reordered %" PRIu64
                                 " icrc %" PRIu64 " delayed %" PRIu64
                                 " flaps %" PRIu64 " queued %" PRIu32
                                 " discards %" PRIu64 "\n", p->num, p->lid,
                                 p->rx_frames, p->tx_frames, p->drops,
                                 p->faults.stats.lost,
                                 p->faults.stats.duplicated,
                                 p->faults.stats.reordered,
                                 p->faults.stats.icrc_errors,
                                 p->faults.stats.delayed, p->flaps,
                                 p->txq_bytes, p->counters.xmit_discards);
    }
}

/* "faults L D R C": the rates, the link's delay kept. */
static bool sw_parse_rates(const char *args, const SwPort *p,
                           VhcaFaultRates *f)
{
    *f = p->faults.rates;
    return sscanf(args, "faults %u %u %u %u", &f->loss, &f->dup, &f->reorder,
                  &f->corrupt) == 4;
}

static void sw_set_rates(SwPort *p, const VhcaFaultRates *f)
{
    p->faults.rates = *f;
    fprintf(stderr, "vhca-switch: port %d faults loss %u%% dup %u%% reorder "
            "%u%% corrupt %u%%\n", p->num, f->loss, f->dup, f->reorder,
            f->corrupt);
}

const char *sw_flap(SwPort *p, unsigned ms)
{
    if (!p->connect_path) {
        return "error: flap needs a --connect port (QEMU 7.2 does not "
               "redial)\n";
    }
    if (ms > SW_MAX_FLAP_MS) {
        return "error: flap lasts at most 60000 ms\n";
    }
    p->flaps++;
    p->down_until_ms = sw_now_ms() + ms;
    if (p->fd >= 0) {
        sw_disconnect(p, "flap");
    }
    return "ok\n";
}

/* "port N ...": one link's faults, delay or flap. */
static const char *sw_port_command(const char *args, SwPort *p)
{
    VhcaFaultRates f;
    unsigned ms;

    if (sw_parse_rates(args, p, &f)) {
        if (!vhca_fault_rates_valid(&f)) {
            return "error: rates are percentages\n";
        }
        sw_set_rates(p, &f);
        return "ok\n";
    }
    if (sscanf(args, "delay %u", &ms) == 1) {
        if (ms > VHCA_FAULT_MAX_DELAY_MS) {
            return "error: delay is at most 10000 ms\n";
        }
        p->faults.rates.delay_ms = ms;
        fprintf(stderr, "vhca-switch: port %d delay %u ms\n", p->num, ms);
        return "ok\n";
    }
    if (sscanf(args, "flap %u", &ms) == 1) {
        return sw_flap(p, ms);
    }
    return "error: port N faults L D R C | port N delay MS | port N flap MS\n";
}

static void sw_control_command(char *line, SwPort *ports, int nports,
                               char *out, size_t size)
{
    int num, used = 0, i;
    VhcaFaultRates f;

    if (nports && sw_parse_rates(line, &ports[0], &f)) {
        if (!vhca_fault_rates_valid(&f)) {
            snprintf(out, size, "error: rates are percentages\n");
            return;
        }
        for (i = 0; i < nports; i++) {
            f.delay_ms = ports[i].faults.rates.delay_ms;
            sw_set_rates(&ports[i], &f);
        }
        snprintf(out, size, "ok\n");
    } else if (sscanf(line, "port %d %n", &num, &used) == 1 && used &&
               !strncmp(line + used, "capture", 7)) {
        if (num >= 1 && num <= nports) {
            sw_capture_command(ports, nports, &ports[num - 1], line + used,
                               out, size);
        } else {
            snprintf(out, size, "error: no such port\n");
        }
    } else if (sscanf(line, "port %d %n", &num, &used) == 1 && used) {
        snprintf(out, size, "%s", num >= 1 && num <= nports ?
                 sw_port_command(line + used, &ports[num - 1]) :
                 "error: no such port\n");
    } else if (!strncmp(line, "link ", 5)) {
        sw_link_command(line, ports, nports, out, size);
    } else if (!strncmp(line, "stats", 5)) {
        sw_control_stats(ports, nports, out, size);
    } else if (!strncmp(line, "rule", 4)) {
        snprintf(out, size, "error: out of memory\n");
    } else if (!strncmp(line, "capture", 7)) {
        sw_capture_command(ports, nports, NULL, line, out, size);
    } else {
        snprintf(out, size, "error: faults LOSS DUP REORDER CORRUPT | "
                 "capture FILE [FILTER] | capture off | port N ... | "
                 "link N down|up | rule ... | stats\n");
    }
}

static int sw_write_all(int fd, const char *text)
{
    size_t len = strlen(text), done = 0;
    ssize_t n;

    while (done < len) {
        n = write(fd, text + done, len - done);
        if (n <= 0) {
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* One command: a line in, an answer out, then the connection closes. */
void sw_control_accept(int listen_fd, SwPort *ports, int nports)
{
    char line[256], out[256 * SW_MAX_PORTS], *answer = NULL;
    int fd = accept(listen_fd, NULL, NULL);
    struct timeval tv = { .tv_sec = 1 };
    ssize_t n;

    if (fd < 0) {
        return;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    n = read(fd, line, sizeof(line) - 1);
    if (n > 0) {
        line[n] = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        out[0] = '\0';
        if (!strncmp(line, "rule ", 5)) {
            answer = sw_rules_command(ports, nports, line + 5);
        }
        if (!answer) {
            sw_control_command(line, ports, nports, out, sizeof(out));
        }
        if (sw_write_all(fd, answer ? answer : out) < 0) {
            /* the client went away: nothing to tell it */
        }
    }
    free(answer);
    close(fd);
}
