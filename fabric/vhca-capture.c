/*
 * vhca - a frame as the IBA packets it stands for, written to pcapng
 * (vhca-capture.h says what and why).  Plain C: no QEMU header.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vhca-bth.h"
#include "vhca-capture.h"

/* ---- CRCs (IBA 7.8) ----------------------------------------------------- */

/*
 * ICRC: CRC-32 of the Ethernet polynomial (0x04C11DB7, bit-reflected,
 * seed all ones, result inverted), sent least significant byte first.
 * VCRC: CRC-16 of polynomial 0x100B, likewise reflected, seeded with ones
 * and inverted.
 */
static uint32_t crc32_table[256];
static uint16_t crc16_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_tables_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint32_t c = i;
        uint16_t v = i;

        for (int b = 0; b < 8; b++) {
            c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
            v = v & 1 ? (v >> 1) ^ 0xd008u : v >> 1;   /* 0x100B reflected */
        }
        crc32_table[i] = c;
        crc16_table[i] = v;
    }
}

static uint32_t crc32_add(uint32_t crc, const uint8_t *p, size_t n)
{
    while (n--) {
        crc = (crc >> 8) ^ crc32_table[(crc ^ *p++) & 0xff];
    }
    return crc;
}

uint32_t vhca_capture_icrc(const uint8_t *pkt, size_t icrc_off)
{
    /* The variant fields count as ones (IBA 7.8.1): the whole LRH, the
     * GRH's traffic class, flow label and hop limit, BTH's resv8a. */
    uint8_t inv[8 + 40 + 12];
    size_t hdrs = (pkt[1] & 3) == 3 ? 8 + 40 + 12 : 8 + 12;
    uint8_t *bth = inv + hdrs - 12;

    pthread_once(&crc_once, crc_tables_init);
    memcpy(inv, pkt, hdrs);
    memset(inv, 0xff, 8);
    if (hdrs > 20) {
        inv[8] |= 0x0f;
        memset(inv + 9, 0xff, 3);
        inv[15] = 0xff;
    }
    bth[4] = 0xff;
    return ~crc32_add(crc32_add(0xffffffffu, inv, hdrs), pkt + hdrs,
                      icrc_off - hdrs);
}

uint16_t vhca_capture_vcrc(const uint8_t *pkt, size_t vcrc_off)
{
    uint16_t crc = 0xffff;

    pthread_once(&crc_once, crc_tables_init);
    for (size_t i = 0; i < vcrc_off; i++) {
        crc = (crc >> 8) ^ crc16_table[(crc ^ pkt[i]) & 0xff];
    }
    return ~crc;
}

/* ---- packets of a frame (IBA 9.2, 9.3) ---------------------------------- */

/* Extension headers a packet carries, in their order after the BTH. */
enum {
    EH_XRCETH = 1 << 0, EH_DETH = 1 << 1, EH_RETH = 1 << 2,
    EH_ATOMICETH = 1 << 3, EH_AETH = 1 << 4, EH_ATOMICACKETH = 1 << 5,
    EH_IMMDT = 1 << 6, EH_IETH = 1 << 7,
    EH_FETH = 1 << 8,       /* IBA 1.5 A19: FLUSH's, before its RETH */
};

typedef struct IbPacketPlan {
    uint8_t opcode;
    unsigned ext;           /* EH_* */
    uint32_t psn;
    uint32_t pay_off;       /* into the frame's payload */
    uint32_t pay_len;
    bool ack_req;
} IbPacketPlan;

static bool frame_is_response(const VhcaWireFrame *f)
{
    return f->kind == VHCA_WIRE_RESPONSE;
}

/* Whether the frame's message goes out in MTU-sized packets. */
static bool frame_has_data_packets(const VhcaWireFrame *f)
{
    if (f->kind == VHCA_WIRE_REQUEST) {
        return !vhca_wqe_returns_data(f->opcode);
    }
    return f->kind == VHCA_WIRE_RESPONSE && f->syndrome == VHCA_WIRE_ACK &&
           f->opcode == VHCA_WQE_RDMA_READ;
}

static unsigned packets_at(uint32_t length, unsigned mtu)
{
    return length ? (length + mtu - 1) / mtu : 1;
}

unsigned vhca_capture_packets(const VhcaWireFrame *f, unsigned mtu,
                              unsigned *first, unsigned *mtu_used)
{
    uint32_t seg_end;

    *first = 0;
    *mtu_used = mtu;
    if (f->kind != VHCA_WIRE_REQUEST && f->kind != VHCA_WIRE_RESPONSE &&
        f->kind != VHCA_WIRE_DATAGRAM) {
        return 0;
    }
    if (!frame_has_data_packets(f)) {
        return f->offset ? 0 : 1;
    }
    /* The sender cut the message at its path MTU; its PSN count says
     * which, unless every MTU gives that count (then the port's). */
    if (packets_at(f->length, mtu) != f->packets) {
        for (unsigned m = VHCA_MTU_BYTES(VHCA_MTU_256);
             m <= VHCA_MTU_BYTES(VHCA_MTU_4096); m <<= 1) {
            if (packets_at(f->length, m) == f->packets) {
                *mtu_used = m;
                break;
            }
        }
    }
    mtu = *mtu_used;
    *first = f->offset / mtu;
    seg_end = f->offset + f->payload_len;
    return f->length ? (seg_end + mtu - 1) / mtu - *first : 1;
}

/* Opcode and headers of packet k (of n) of a data-carrying message. */
static void plan_data(const VhcaWireFrame *f, unsigned k, unsigned n,
                      IbPacketPlan *p)
{
    bool only = n == 1, first = k == 0, last = k == n - 1;
    bool imm = f->flags & VHCA_WIRE_F_IMM, inv = f->flags & VHCA_WIRE_F_INV;

    if (frame_is_response(f)) {
        p->opcode = only ? VHCA_BTH_READ_RESP_ONLY :
                    first ? VHCA_BTH_READ_RESP_FIRST :
                    last ? VHCA_BTH_READ_RESP_LAST : VHCA_BTH_READ_RESP_MIDDLE;
        p->ext = only || first || last ? EH_AETH : 0;
        return;
    }
    switch (f->opcode) {
    case VHCA_WQE_RDMA_WRITE:
    case VHCA_WQE_RDMA_WRITE_WITH_IMM:
        p->opcode = only ? (imm ? VHCA_BTH_WRITE_ONLY_IMM
                                : VHCA_BTH_WRITE_ONLY) :
                    first ? VHCA_BTH_WRITE_FIRST :
                    last ? (imm ? VHCA_BTH_WRITE_LAST_IMM
                                : VHCA_BTH_WRITE_LAST) :
                    VHCA_BTH_WRITE_MIDDLE;
        p->ext = (first ? EH_RETH : 0) | (last && imm ? EH_IMMDT : 0);
        break;
    case VHCA_WQE_ATOMIC_WRITE:
        p->opcode = VHCA_BTH_ATOMIC_WRITE;
        p->ext = EH_RETH;
        break;
    default:                /* SEND, with immediate or invalidate */
        p->opcode = only ? (imm ? VHCA_BTH_SEND_ONLY_IMM :
                            inv ? VHCA_BTH_SEND_ONLY_INV : VHCA_BTH_SEND_ONLY) :
                    first ? VHCA_BTH_SEND_FIRST :
                    last ? (imm ? VHCA_BTH_SEND_LAST_IMM :
                            inv ? VHCA_BTH_SEND_LAST_INV : VHCA_BTH_SEND_LAST) :
                    VHCA_BTH_SEND_MIDDLE;
        p->ext = last && imm ? EH_IMMDT : last && inv ? EH_IETH : 0;
        break;
    }
}

static uint8_t transport_of(const VhcaWireFrame *f)
{
    switch (f->qp_type) {
    case VHCA_QPT_UC:
        return VHCA_BTH_UC;
    case VHCA_QPT_XRC_INI:
        return f->kind == VHCA_WIRE_REQUEST ? VHCA_BTH_XRC : VHCA_BTH_RC;
    default:
        return VHCA_BTH_RC;
    }
}

static void plan_packet(const VhcaWireFrame *f, unsigned mtu, unsigned k,
                        unsigned first, IbPacketPlan *p)
{
    unsigned idx = first + k;
    unsigned total = f->kind == VHCA_WIRE_DATAGRAM ? 1 : f->packets;

    memset(p, 0, sizeof(*p));
    p->psn = (f->psn + idx) & 0xffffff;
    if (f->kind == VHCA_WIRE_DATAGRAM) {
        p->opcode = VHCA_BTH_UD | ((f->flags & VHCA_WIRE_F_IMM)
                                   ? VHCA_BTH_SEND_ONLY_IMM : VHCA_BTH_SEND_ONLY);
        p->ext = EH_DETH | ((f->flags & VHCA_WIRE_F_IMM) ? EH_IMMDT : 0);
        p->pay_len = f->payload_len;
        return;
    }
    if (frame_has_data_packets(f)) {
        p->pay_off = idx * mtu - f->offset;
        p->pay_len = f->length ? ((idx + 1) * mtu < f->offset + f->payload_len
                                  ? mtu : f->offset + f->payload_len - idx * mtu)
                               : 0;
        plan_data(f, idx, total ? total : 1, p);
        if (!frame_is_response(f)) {
            p->opcode |= transport_of(f);
            p->ext |= transport_of(f) == VHCA_BTH_XRC ? EH_XRCETH : 0;
            p->ack_req = idx + 1 == total && f->qp_type != VHCA_QPT_UC;
        }
        return;
    }
    if (f->kind == VHCA_WIRE_REQUEST && f->opcode == VHCA_WQE_FLUSH) {
        /* IBA 1.5 A19.4.1: BTH, [XRCETH,] FETH, RETH; no payload */
        p->ack_req = true;
        p->opcode = transport_of(f) | VHCA_BTH_FLUSH;
        p->ext = EH_FETH | EH_RETH |
                 (transport_of(f) == VHCA_BTH_XRC ? EH_XRCETH : 0);
        return;
    }
    if (f->kind == VHCA_WIRE_REQUEST) {
        p->ack_req = true;
        p->opcode = transport_of(f) |
            (f->opcode == VHCA_WQE_RDMA_READ ? VHCA_BTH_READ_REQUEST :
             f->opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ? VHCA_BTH_CMP_SWAP
                                                      : VHCA_BTH_FETCH_ADD);
        p->ext = (f->opcode == VHCA_WQE_RDMA_READ ? EH_RETH : EH_ATOMICETH) |
                 (transport_of(f) == VHCA_BTH_XRC ? EH_XRCETH : 0);
        return;
    }
    /* An ACK or NAK acknowledges the message's last PSN; a sequence error
     * NAK names the PSN expected (IBA 9.7.5.1.2). */
    p->psn = (f->psn + (f->packets ? f->packets - 1 : 0)) & 0xffffff;
    if (f->syndrome == VHCA_WIRE_NAK_SEQ) {
        p->psn = f->nak_psn;
    } else if (f->syndrome != VHCA_WIRE_ACK) {
        p->psn = f->psn;
    }
    if (f->syndrome == VHCA_WIRE_ACK && f->opcode == VHCA_WQE_FLUSH) {
        /* IBA 1.5 oA19-2: an RDMA READ response without payload */
        p->opcode = VHCA_BTH_READ_RESP_ONLY;
        p->ext = EH_AETH;
    } else if (f->syndrome == VHCA_WIRE_ACK &&
               vhca_wqe_returns_data(f->opcode)) {
        p->opcode = VHCA_BTH_ATOMIC_ACK;
        p->ext = EH_AETH | EH_ATOMICACKETH;
    } else {
        p->opcode = VHCA_BTH_ACK;
        p->ext = EH_AETH;
    }
}

static uint8_t *put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
    return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
    return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
    return put32(put32(p, v >> 32), v);
}

/* AETH syndrome (IBA 9.7.5.2.1, table 44). */
static uint8_t aeth_syndrome(const VhcaWireFrame *f)
{
    switch (f->syndrome) {
    case VHCA_WIRE_NAK_RNR:
        return 0x20 | (f->rnr_timer & 0x1f);
    case VHCA_WIRE_NAK_SEQ:
        return 0x60;
    case VHCA_WIRE_NAK_INV_REQ:
        return 0x61;
    case VHCA_WIRE_NAK_REM_ACCESS:
        return 0x62;
    case VHCA_WIRE_NAK_REM_OP:
        return 0x63;
    default:
        return 0x1f;        /* ACK, no credit information */
    }
}

static uint8_t *put_ext(const VhcaWireFrame *f, const IbPacketPlan *p,
                        uint8_t *q)
{
    if (p->ext & EH_XRCETH) {
        q = put32(q, f->xrc_srqn & 0xffffff);
    }
    if (p->ext & EH_DETH) {
        q = put32(put32(q, f->qkey), f->src_qpn & 0xffffff);
    }
    if (p->ext & EH_FETH) {
        q = put32(q, (uint32_t)f->swap);    /* VHCA_FETH: SEL 5:4, PLT 3:0 */
    }
    if (p->ext & EH_RETH) {
        /* a FLUSH's DMA length is its range's, carried in compare_add */
        q = put32(put32(put64(q, f->remote_addr), f->rkey),
                  p->ext & EH_FETH ? (uint32_t)f->compare_add : f->length);
    }
    if (p->ext & EH_ATOMICETH) {
        q = put64(put64(put32(put64(q, f->remote_addr), f->rkey),
                        f->opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ? f->swap
                                                                 : f->compare_add),
                  f->opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ? f->compare_add : 0);
    }
    if (p->ext & EH_AETH) {
        *q++ = aeth_syndrome(f);
        *q++ = 0;           /* MSN: the frame does not carry it */
        *q++ = 0;
        *q++ = 0;
    }
    if (p->ext & EH_ATOMICACKETH) {
        q = put64(q, f->compare_add);
    }
    if (p->ext & (EH_IMMDT | EH_IETH)) {
        memcpy(q, &f->imm_inv, 4);          /* wire order already */
        q += 4;
    }
    return q;
}

size_t vhca_capture_packet(const VhcaWireFrame *f, unsigned port_mtu,
                           unsigned k, uint8_t *buf)
{
    IbPacketPlan p;
    unsigned first, mtu, n = vhca_capture_packets(f, port_mtu, &first, &mtu);
    bool grh = f->flags & VHCA_WIRE_F_GRH;
    bool smi = f->kind == VHCA_WIRE_DATAGRAM && f->qp_type == VHCA_QPT_SMI;
    uint8_t *q = buf + 8, *bth, *start;
    unsigned pad;
    size_t icrc_off, words;

    plan_packet(f, mtu, k, first, &p);
    if (grh) {
        q += 40;
    }
    bth = q;
    *q++ = p.opcode;
    pad = (4 - (p.pay_len & 3)) & 3;
    /* SE on the packet that completes a SEND or WRITE with immediate */
    *q++ = ((f->flags & VHCA_WIRE_F_SOLICITED) && !frame_is_response(f) &&
            k + 1 == n ? 0x80 : 0) | pad << 4;
    q = put16(q, 0xffff);                   /* P_Key */
    q = put32(q, f->dst_qpn & 0xffffff);    /* resv8a = 0 */
    q = put32(q, (p.ack_req ? 0x80000000u : 0) | p.psn);
    q = put_ext(f, &p, q);
    if (p.pay_len) {
        memcpy(q, f->payload + p.pay_off, p.pay_len);
        q += p.pay_len;
    }
    memset(q, 0, pad);
    q += pad;
    icrc_off = q - buf;
    words = (icrc_off + 4) / 4;
    /* LRH (IBA 7.7): VL15 for SMPs, else VL0; LNH 2 local, 3 global. */
    buf[0] = (smi ? 0xf0 : 0x00);
    buf[1] = (f->sl & 0xf) << 4 | (grh ? 3 : 2);
    put16(buf + 2, f->dlid);
    put16(buf + 4, words & 0x7ff);
    put16(buf + 6, f->slid);
    if (grh) {
        start = buf + 8;                     /* GRH (IBA 8.3) */
        put32(start, 6u << 28 | (uint32_t)f->traffic_class << 20 |
                     (f->flow_label & 0xfffff));
        put16(start + 4, icrc_off + 4 - (bth - buf));
        start[6] = 0x1b;                     /* next header: IBA */
        start[7] = f->hop_limit;
        put64(start + 8, 0xfe80000000000000ull);    /* link-local SGID */
        put64(start + 16, f->src_guid);
        memcpy(start + 24, f->dgid, 16);
    }
    {
        uint32_t icrc = vhca_capture_icrc(buf, icrc_off);
        uint16_t vcrc;

        /* least significant byte first, as sent */
        q[0] = icrc;
        q[1] = icrc >> 8;
        q[2] = icrc >> 16;
        q[3] = icrc >> 24;
        q += 4;
        vcrc = vhca_capture_vcrc(buf, q - buf);
        q[0] = vcrc;
        q[1] = vcrc >> 8;
        q += 2;
    }
    return q - buf;
}

/* ---- filters ------------------------------------------------------------ */

static bool frame_is_mad(const VhcaWireFrame *f)
{
    return f->kind == VHCA_WIRE_DATAGRAM &&
           (f->qp_type == VHCA_QPT_SMI || f->qp_type == VHCA_QPT_GSI ||
            f->dst_qpn <= 1);
}

static bool filter_keeps(const VhcaCaptureFilter *flt, const VhcaWireFrame *f)
{
    if (flt->mads_only && !frame_is_mad(f)) {
        return false;
    }
    if (flt->qpn != VHCA_CAPTURE_ANY && f->dst_qpn != flt->qpn &&
        f->src_qpn != flt->qpn) {
        return false;
    }
    return flt->lid == VHCA_CAPTURE_ANY || f->slid == flt->lid ||
           f->dlid == flt->lid;
}

const char *vhca_capture_filter_parse(const char *text,
                                      VhcaCaptureFilter *flt)
{
    char *copy = strdup(text ? text : ""), *save = NULL, *tok;
    const char *why = NULL;

    vhca_capture_filter_all(flt);
    for (tok = strtok_r(copy, ",", &save); tok && !why;
         tok = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long v = 0;
        const char *eq = strchr(tok, '=');

        if (!strcmp(tok, "mads")) {
            flt->mads_only = true;
            continue;
        }
        if (!eq) {
            why = "capture filter: expected qpn=N, lid=N, mads or snaplen=N";
            break;
        }
        errno = 0;
        v = strtoul(eq + 1, &end, 0);
        if (errno || *end || end == eq + 1) {
            why = "capture filter: not a number";
        } else if (!strncmp(tok, "qpn=", 4) && v <= 0xffffff) {
            flt->qpn = v;
        } else if (!strncmp(tok, "lid=", 4) && v <= 0xffff) {
            flt->lid = v;
        } else if (!strncmp(tok, "snaplen=", 8) && v >= 8 && v <= 0xffff) {
            flt->snaplen = v;
        } else {
            why = "capture filter: unknown key or value out of range "
                  "(qpn < 2^24, lid < 2^16, 8 <= snaplen < 2^16)";
        }
    }
    free(copy);
    return why;
}

/* ---- pcapng (draft-ietf-opsawg-pcapng) ------------------------------------ */

struct VhcaCapture {
    pthread_mutex_t lock;
    FILE *file;
    VhcaCaptureFilter filter;
    unsigned nif;
    uint64_t written;
    uint64_t filtered;
};

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    put_le16(p, v);
    put_le16(p + 2, v >> 16);
}

/* One option (code, value) padded to 4 bytes; returns its size. */
static size_t pcapng_option(uint8_t *p, uint16_t code, const void *val,
                            uint16_t len)
{
    put_le16(p, code);
    put_le16(p + 2, len);
    memcpy(p + 4, val, len);
    memset(p + 4 + len, 0, (4 - (len & 3)) & 3);
    return 4 + ((len + 3u) & ~3u);
}

/* A block: type, total length, body (4-byte multiple), total length. */
static bool pcapng_block(FILE *file, uint32_t type, const uint8_t *body,
                         size_t body_len, const uint8_t *tail, size_t tail_len)
{
    uint8_t head[8], len[4];
    uint32_t total = 12 + body_len + tail_len;

    put_le32(head, type);
    put_le32(head + 4, total);
    put_le32(len, total);
    return fwrite(head, 8, 1, file) == 1 &&
           (!body_len || fwrite(body, body_len, 1, file) == 1) &&
           (!tail_len || fwrite(tail, tail_len, 1, file) == 1) &&
           fwrite(len, 4, 1, file) == 1;
}

static bool pcapng_header(FILE *file, const char *const *ifnames, unsigned nif)
{
    uint8_t shb[16 + 4], idb[8 + 4 + 260 + 12 + 4];
    static const uint8_t tsresol = 9;       /* nanoseconds */

    put_le32(shb, 0x1a2b3c4d);               /* byte-order magic */
    put_le16(shb + 4, 1);
    put_le16(shb + 6, 0);
    memset(shb + 8, 0xff, 8);                /* section length unknown */
    put_le32(shb + 16, 0);                   /* opt_endofopt */
    if (!pcapng_block(file, 0x0a0d0d0a, shb, sizeof(shb), NULL, 0)) {
        return false;
    }
    for (unsigned i = 0; i < nif; i++) {
        size_t n = 8, name_len = strnlen(ifnames[i], 255);

        put_le16(idb, VHCA_CAPTURE_LINKTYPE_ERF);
        put_le16(idb + 2, 0);
        put_le32(idb + 4, 0);                /* snaplen: none */
        n += pcapng_option(idb + n, 2, ifnames[i], name_len);   /* if_name */
        n += pcapng_option(idb + n, 9, &tsresol, 1);            /* if_tsresol */
        put_le32(idb + n, 0);
        n += 4;
        if (!pcapng_block(file, 1, idb, n, NULL, 0)) {
            return false;
        }
    }
    return fflush(file) == 0;
}

VhcaCapture *vhca_capture_open(const char *path, const VhcaCaptureFilter *flt,
                               const char *const *ifnames, unsigned nif)
{
    VhcaCapture *c;
    FILE *file = fopen(path, "wb");

    if (!file) {
        return NULL;
    }
    if (!pcapng_header(file, ifnames, nif)) {
        int err = errno ? errno : EIO;

        fclose(file);
        errno = err;
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        fclose(file);
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->file = file;
    c->filter = *flt;
    c->nif = nif;
    return c;
}

void vhca_capture_close(VhcaCapture *c)
{
    if (c) {
        fclose(c->file);
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
}

void vhca_capture_stats(VhcaCapture *c, uint64_t *written, uint64_t *filtered)
{
    pthread_mutex_lock(&c->lock);
    *written = c->written;
    *filtered = c->filtered;
    pthread_mutex_unlock(&c->lock);
}

/*
 * One Enhanced Packet Block with its direction (epb_flags): an ERF record
 * header of type InfiniBand, then the packet.  The ERF header (Endace's
 * "ERF types reference"): 64-bit little-endian timestamp in 32.32 fixed
 * point seconds, type, flags (varying length), record length, loss
 * counter and wire length, those three big-endian.
 */
static void pcapng_packet(VhcaCapture *c, unsigned ifidx, bool outbound,
                          uint64_t ns, const uint8_t *pkt, size_t len)
{
    uint8_t body[20 + VHCA_CAPTURE_ERF_HDR], opts[12], head[8];
    size_t keep = c->filter.snaplen && len > c->filter.snaplen ?
                  c->filter.snaplen : len;
    uint8_t pad[3] = { 0 };
    size_t rec = VHCA_CAPTURE_ERF_HDR + keep;
    size_t padlen = (4 - (rec & 3)) & 3;
    uint32_t total = 12 + 20 + rec + padlen + sizeof(opts);
    uint64_t erf_ts = (ns / 1000000000u) << 32 |
                      ((ns % 1000000000u) << 32) / 1000000000u;
    uint8_t *erf = body + 20;

    put_le32(body, ifidx);
    put_le32(body + 4, ns >> 32);
    put_le32(body + 8, ns);
    put_le32(body + 12, rec);
    put_le32(body + 16, VHCA_CAPTURE_ERF_HDR + len);
    put_le32(erf, erf_ts);
    put_le32(erf + 4, erf_ts >> 32);
    erf[8] = VHCA_CAPTURE_ERF_TYPE;
    erf[9] = 0x04;                           /* varying length record */
    put16(erf + 10, rec);
    put16(erf + 12, 0);
    put16(erf + 14, len);
    put_le16(opts, 2);                       /* epb_flags: direction */
    put_le16(opts + 2, 4);
    put_le32(opts + 4, outbound ? 2 : 1);
    put_le32(opts + 8, 0);                   /* opt_endofopt */
    put_le32(head, 6);
    put_le32(head + 4, total);
    fwrite(head, 8, 1, c->file);
    fwrite(body, sizeof(body), 1, c->file);
    fwrite(pkt, keep, 1, c->file);
    fwrite(pad, padlen, 1, c->file);
    fwrite(opts, sizeof(opts), 1, c->file);
    fwrite(head + 4, 4, 1, c->file);
}

unsigned vhca_capture_frame(VhcaCapture *c, unsigned ifidx, bool outbound,
                            const VhcaWireFrame *f, unsigned mtu)
{
    uint8_t pkt[VHCA_CAPTURE_MAX_PACKET];
    unsigned first, mtu_used, n;
    struct timespec ts;
    uint64_t ns;

    if (mtu < VHCA_MTU_BYTES(VHCA_MTU_256) ||
        mtu > VHCA_MTU_BYTES(VHCA_MTU_4096) || (mtu & (mtu - 1))) {
        mtu = VHCA_MTU_BYTES(VHCA_MTU_4096);
    }
    n = vhca_capture_packets(f, mtu, &first, &mtu_used);
    if (!n || ifidx >= c->nif) {
        return 0;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
    pthread_mutex_lock(&c->lock);
    if (!filter_keeps(&c->filter, f)) {
        c->filtered += n;
        pthread_mutex_unlock(&c->lock);
        return 0;
    }
    for (unsigned k = 0; k < n; k++) {
        size_t len = vhca_capture_packet(f, mtu, k, pkt);

        pcapng_packet(c, ifidx, outbound, ns, pkt, len);
    }
    c->written += n;
    fflush(c->file);
    pthread_mutex_unlock(&c->lock);
    return n;
}
