/*
 * vhca-switch - link faults on demand, and the control socket that sets
 * them (Documentation/fabric.md "Faults").
 *
 * Every data frame the switch forwards (not HELLO/LINK) leaves through
 * sw_egress(), which applies the fault rates, in percent, of every link:
 * corruption (the frame is dropped as a receiver drops a packet with a bad
 * ICRC, and counted as such), loss, reordering (the frame is held back and
 * sent after the next frame to the same port) and duplication.  The
 * choices come from a seeded xorshift generator, so a run is repeatable.
 *
 * The control socket (DIR/control with --dir) takes one line per
 * connection and answers one line:
 *   faults LOSS DUP REORDER CORRUPT   set the rates (0..100 each)
 *   stats                             per port: rx tx drops lost dup
 *                                     reordered icrc
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-switch.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static struct {
    unsigned loss, dup, reorder, corrupt;       /* percent */
} sw_faults;
static uint64_t sw_rng = 0x9e3779b97f4a7c15ull;

void sw_faults_seed(uint64_t seed)
{
    sw_rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

/* true with probability pct / 100 */
static bool sw_roll(unsigned pct)
{
    if (!pct) {
        return false;
    }
    sw_rng ^= sw_rng << 13;
    sw_rng ^= sw_rng >> 7;
    sw_rng ^= sw_rng << 17;
    return sw_rng % 100 < pct;
}

static void sw_send_held(SwPort *p)
{
    uint8_t *held = p->held;

    if (held) {
        p->held = NULL;
        sw_send(p, held, p->held_len);
        free(held);
    }
}

void sw_egress(SwPort *p, const uint8_t *frame, uint32_t len)
{
    if (sw_roll(sw_faults.corrupt)) {
        p->icrc_errors++;
        return;
    }
    if (sw_roll(sw_faults.loss)) {
        p->lost++;
        return;
    }
    if (!p->held && sw_roll(sw_faults.reorder)) {
        p->held = malloc(len);
        if (p->held) {
            memcpy(p->held, frame, len);
            p->held_len = len;
            p->reordered++;
            return;
        }
    }
    sw_send(p, frame, len);
    if (sw_roll(sw_faults.dup)) {
        p->duplicated++;
        sw_send(p, frame, len);
    }
    sw_send_held(p);
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
                                 " icrc %" PRIu64 "\n", p->num, p->lid,
                                 p->rx_frames, p->tx_frames, p->drops,
                                 p->lost, p->duplicated, p->reordered,
                                 p->icrc_errors);
    }
}

static void sw_control_command(char *line, SwPort *ports, int nports,
                               char *out, size_t size)
{
    unsigned loss, dup, reorder, corrupt;

    if (sscanf(line, "faults %u %u %u %u", &loss, &dup, &reorder,
               &corrupt) == 4) {
        if (loss > 100 || dup > 100 || reorder > 100 || corrupt > 100) {
            snprintf(out, size, "error: rates are percentages\n");
            return;
        }
        sw_faults.loss = loss;
        sw_faults.dup = dup;
        sw_faults.reorder = reorder;
        sw_faults.corrupt = corrupt;
        fprintf(stderr, "vhca-switch: faults loss %u%% dup %u%% reorder "
                "%u%% corrupt %u%%\n", loss, dup, reorder, corrupt);
        snprintf(out, size, "ok\n");
    } else if (!strncmp(line, "stats", 5)) {
        sw_control_stats(ports, nports, out, size);
    } else {
        snprintf(out, size, "error: faults LOSS DUP REORDER CORRUPT | stats\n");
    }
}

/* One command: a line in, an answer out, then the connection closes. */
void sw_control_accept(int listen_fd, SwPort *ports, int nports)
{
    char line[128], out[64 * SW_MAX_PORTS];
    int fd = accept(listen_fd, NULL, NULL);
    struct timeval tv = { .tv_sec = 1 };
    ssize_t n;

    if (fd < 0) {
        return;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    n = read(fd, line, sizeof(line) - 1);
    if (n > 0) {
        line[n] = '\0';
        out[0] = '\0';
        sw_control_command(line, ports, nports, out, sizeof(out));
        if (write(fd, out, strlen(out)) < 0) {
            /* the client went away: nothing to tell it */
        }
    }
    close(fd);
}
