/*
 * vhca-switch - its command line: the options, their ranges and the usage
 * (Documentation/fabric.md "Several VMs on one host", "Fabrics of many
 * switches").
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
#include "vhca-sm-arbiter.h"
#include "vhca-switch.h"

#include <errno.h>
#include <getopt.h>

static void sw_usage(void)
{
    fprintf(stderr, "usage: vhca-switch --ports N (--dir DIR | --tcp BASE) "
            "[--connect N=PATH]... [--control PATH] [--seed S]\n"
            "       [--embedded-sm on|off] [--sm-priority N] [--sm-poll-ms MS]\n"
            "       [--sm-poll-retries N] [--sm-key KEY] [--verbose]\n"
            "       [--guid GUID] [--name DESC] [--isl N]...\n"
            "  --dir DIR       unix sockets DIR/port1 .. DIR/portN, and the\n"
            "                  control socket DIR/control\n"
            "  --tcp BASE      127.0.0.1 TCP ports BASE+1 .. BASE+N\n"
            "  --connect N=PATH  port N dials the unix socket of a QEMU\n"
            "                  netdev with server=on (and dials again)\n"
            "  --control PATH  the control socket (link faults, counters)\n"
            "  --seed S        seed of the fault generator\n"
            "  --guid GUID     the switch's node GUID (0x525400ff00000001)\n"
            "  --name DESC     its NodeDescription (vhca-switch)\n"
            "  --isl N         port N is cabled to another switch\n"
            "                  (Documentation/fabric-topology.md)\n"
            "  --embedded-sm off  no SM or SA in the switch: ports stay\n"
            "                  INIT until an SM in a guest (opensm)\n"
            "                  configures them and the switch\n"
            "  --sm-priority N   the SM's SMInfo:Priority, 0..15 (0)\n"
            "  --sm-poll-ms MS   how often it polls a master or looks at\n"
            "                  the other SMs, 100..600000 (10000)\n"
            "  --sm-poll-retries N  unanswered polls before it takes the\n"
            "                  subnet over (4)\n"
            "  --sm-key KEY    SMInfo:SM_Key the subnet's SMs share (1)\n"
            "  --capture FILE  pcapng of every port's packets (fabric.md\n"
            "                  \"Capture\")\n"
            "  --capture-filter qpn=N,lid=N,mads,snaplen=N  what it keeps\n");
    exit(2);
}

/* A number option, 0..max (else the usage). */
static uint64_t sw_number(const char *arg, uint64_t max)
{
    char *end;
    uint64_t v;

    errno = 0;
    v = strtoull(arg, &end, 0);
    if (errno || end == arg || *end || arg[0] == '-' || v > max) {
        fprintf(stderr, "vhca-switch: bad number '%s' (0..%" PRIu64 ")\n",
                arg, max);
        exit(2);
    }
    return v;
}

/* --sm-priority, --sm-poll-ms, --sm-poll-retries, --sm-key (getopt's c). */
static void sw_sm_option(VhcaFabricSmConf *sm, int c, const char *arg)
{
    if (c == 'P') {
        sm->priority = sw_number(arg, VHCA_SM_PRIORITY_MAX);
    } else if (c == 'M') {
        sm->poll_ms = sw_number(arg, VHCA_SM_POLL_MAX_MS);
    } else if (c == 'R') {
        sm->poll_retries = sw_number(arg, UINT8_MAX);
    } else {
        sm->sm_key = sw_number(arg, UINT64_MAX);
    }
}

/* The command line into *a (its defaults set by the caller), or the usage. */
void sw_parse_args(int argc, char **argv, SwArgs *a)
{
    static const struct option opts[] = {
        { "ports", required_argument, NULL, 'n' },
        { "dir", required_argument, NULL, 'd' },
        { "tcp", required_argument, NULL, 't' },
        { "control", required_argument, NULL, 'c' },
        { "connect", required_argument, NULL, 'C' },
        { "seed", required_argument, NULL, 's' },
        { "verbose", no_argument, NULL, 'v' },
        { "embedded-sm", required_argument, NULL, 'S' },
        { "sm-priority", required_argument, NULL, 'P' },
        { "sm-poll-ms", required_argument, NULL, 'M' },
        { "sm-poll-retries", required_argument, NULL, 'R' },
        { "sm-key", required_argument, NULL, 'K' },
        { "capture", required_argument, NULL, 'w' },
        { "capture-filter", required_argument, NULL, 'F' },
        { "guid", required_argument, NULL, 'g' },
        { "name", required_argument, NULL, 'N' },
        { "isl", required_argument, NULL, 'I' },
        { NULL, 0, NULL, 0 },
    };
    const char *why;
    int c, n, i;

    while ((c = getopt_long(argc, argv, "n:d:t:c:C:s:vS:P:M:R:K:w:F:g:N:I:", opts,
                            NULL)) != -1) {
        switch (c) {
        case 'n':
            a->nports = atoi(optarg);
            break;
        case 'd':
            a->dir = optarg;
            break;
        case 't':
            a->tcp_base = atoi(optarg);
            break;
        case 'c':
            a->control = optarg;
            break;
        case 'C':
            n = atoi(optarg);
            if (n < 1 || n > SW_MAX_PORTS || !strchr(optarg, '=')) {
                sw_usage();
            }
            a->connect[n - 1] = strchr(optarg, '=') + 1;
            break;
        case 's':
            a->seed = strtoull(optarg, NULL, 0);
            break;
        case 'v':
            a->verbose = true;
            break;
        case 'S':
            if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
                sw_usage();
            }
            a->sm.embedded = !strcmp(optarg, "on");
            break;
        case 'P':
        case 'M':
        case 'R':
        case 'K':
            sw_sm_option(&a->sm, c, optarg);
            break;
        case 'w':
            a->capture = optarg;
            break;
        case 'F':
            a->capture_filter = optarg;
            break;
        case 'g':
            a->guid = sw_number(optarg, UINT64_MAX);
            if (!a->guid) {
                sw_usage();     /* GUID 0 is no GUID (IBA 4.1.1) */
            }
            break;
        case 'N':
            a->name = optarg;
            break;
        case 'I':
            n = (int)sw_number(optarg, SW_MAX_PORTS);
            if (n < 1) {
                sw_usage();
            }
            a->isl[n - 1] = true;
            a->any_isl = true;
            break;
        default:
            sw_usage();
        }
    }
    for (i = 0; i < a->nports && i < SW_MAX_PORTS; i++) {
        if (!a->connect[i] && !a->dir && !a->tcp_base) {
            sw_usage();         /* a port with neither a socket nor a dial */
        }
    }
    if (a->nports < 1 || a->nports > SW_MAX_PORTS || (a->dir && a->tcp_base) ||
        (a->tcp_base && (a->tcp_base < 1 || a->tcp_base + a->nports > 65535))) {
        sw_usage();
    }
    for (i = a->nports; i >= 0 && i < SW_MAX_PORTS; i++) {
        if (a->isl[i]) {
            sw_usage();         /* --isl of a port the switch does not have */
        }
    }
    if (a->any_isl && a->sm.embedded) {
        /* its SM would only see its own ports: opensm manages a topology */
        fprintf(stderr, "vhca-switch: --isl needs --embedded-sm off\n");
        exit(2);
    }
    why = vhca_sm_conf_invalid(&a->sm);
    if (why) {
        fprintf(stderr, "vhca-switch: %s\n", why);
        exit(2);
    }
}

