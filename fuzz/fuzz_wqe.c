/*
 * libFuzzer target: send and receive WQE decoding (qemu-device/vhca-wqe.c),
 * what the device does with every work request the guest posts before any
 * key or memory check.
 *
 * Input: byte 0 bit 7 picks send (0) or receive (1) WQEs, the rest the
 * stride (2^shift bytes, the shifts CREATE_QP accepts); byte 1 the QP type
 * (RC, UC, UD, SMI, GSI); bytes 2..5 the QP's max_inline; the rest is the
 * WQE, in a heap buffer of exactly the stride (zero-padded), so that
 * AddressSanitizer sees any read past the stride.
 *
 * Besides the sanitizers, a decoded WQE must keep to the layout of
 * vhca_hw_verbs.h ("Send WQEs"): control segment, opcode segment, then
 * SGEs or inline data, all inside the stride; inline data within
 * max_inline; the length the sum of the SGEs (or the inline length) and at
 * most max_msg_sz; atomics 8 bytes (the remote alignment is the
 * responder's check);
 * no unknown flag; and each decoded field equal to the bytes written.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vhca-wqe.h"

#define HEADER_BYTES    6

static const uint8_t qp_types[] = {
    VHCA_QPT_RC, VHCA_QPT_UC, VHCA_QPT_UD, VHCA_QPT_SMI, VHCA_QPT_GSI,
    VHCA_QPT_XRC_INI, VHCA_QPT_XRC_TGT,
};

/* RC's transport: RC and the XRC initiator (IBA A14.3). */
static bool reliable_sender(uint8_t qp_type)
{
    return qp_type == VHCA_QPT_RC || qp_type == VHCA_QPT_XRC_INI;
}

static bool datagram(uint8_t qp_type)
{
    return qp_type == VHCA_QPT_UD || qp_type == VHCA_QPT_SMI ||
           qp_type == VHCA_QPT_GSI;
}

static void expect(bool ok, const char *what, unsigned a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_wqe: %s (%u, %u)\n", what, a, b);
        abort();
    }
}

static uint64_t le_at(const uint8_t *p, size_t bytes)
{
    uint64_t v = 0;
    size_t i;

    for (i = 0; i < bytes; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static bool is_atomic(uint8_t opcode)
{
    return opcode == VHCA_WQE_ATOMIC_CMP_AND_SWP ||
           opcode == VHCA_WQE_ATOMIC_FETCH_AND_ADD;
}

/* The SGE array decoded from bytes at sges, and the sum of its lengths. */
static uint64_t check_sges(const uint8_t *sges, const VhcaSge *sge,
                           uint32_t num_sge)
{
    uint64_t sum = 0;
    uint32_t i;

    for (i = 0; i < num_sge; i++) {
        const uint8_t *raw = sges + i * sizeof(struct vhca_sge);

        expect(sge[i].addr == le_at(raw, 8), "sge addr", i, num_sge);
        expect(sge[i].length == le_at(raw + 8, 4), "sge length", i, num_sge);
        expect(sge[i].lkey == le_at(raw + 12, 4), "sge lkey", i, num_sge);
        sum += sge[i].length;
    }
    return sum;
}

/* The segment after the control segment (vhca_hw_verbs.h table). */
static uint32_t segment_bytes(uint8_t opcode, uint8_t qp_type)
{
    switch (opcode) {
    case VHCA_WQE_RDMA_WRITE:
    case VHCA_WQE_RDMA_WRITE_WITH_IMM:
    case VHCA_WQE_RDMA_READ:
        return 16;
    case VHCA_WQE_ATOMIC_CMP_AND_SWP:
    case VHCA_WQE_ATOMIC_FETCH_AND_ADD:
    case VHCA_WQE_ATOMIC_WRITE:
    case VHCA_WQE_FLUSH:
        return 32;
    case VHCA_WQE_REG_MR:
        return 48;
    case VHCA_WQE_BIND_MW:
        return 32;
    case VHCA_WQE_LOCAL_INV:
        return 0;
    default:
        return datagram(qp_type) ? 48 : 0;
    }
}

static void fuzz_send(const uint8_t *buf, uint32_t stride, uint8_t qp_type,
                      uint32_t max_inline)
{
    static VhcaSendWqe wqe;
    const char *why = NULL;
    uint8_t verr = vhca_wqe_decode_send(buf, stride, qp_type, max_inline,
                                        &wqe, &why);
    const uint8_t *end = buf + stride;
    const uint8_t *data;

    expect(verr == VHCA_VERR_NONE || verr == VHCA_VERR_BAD_WQE ||
           verr == VHCA_VERR_LENGTH, "send verdict", verr, 0);
    expect((verr == VHCA_VERR_NONE) == (why == NULL), "reason iff failed",
           verr, 0);
    if (verr != VHCA_VERR_NONE) {
        return;
    }
    expect(wqe.wr_id == le_at(buf, 8), "wr_id", 0, 0);
    expect(wqe.opcode == buf[8] && wqe.flags == buf[9], "opcode/flags",
           wqe.opcode, buf[8]);
    /* The XRC target has no send queue: nothing is a WQE for it. */
    expect(qp_type != VHCA_QPT_XRC_TGT, "WQE on an XRC target", 0, 0);
    expect(wqe.xrc_srqn == (le_at(buf + 20, 4) & 0xffffff), "xrc_srqn",
           wqe.xrc_srqn, 0);
    expect(!(wqe.flags & ~(VHCA_WQE_F_SIGNALED | VHCA_WQE_F_SOLICITED |
                           VHCA_WQE_F_FENCE | VHCA_WQE_F_INLINE)),
           "unknown flag accepted", wqe.flags, 0);
    expect(wqe.length <= VHCA_MAX_MSG_BYTES, "length above max_msg_sz",
           (unsigned)wqe.length, 0);
    data = buf + sizeof(struct vhca_wqe_ctrl) +
           segment_bytes(wqe.opcode, qp_type);
    expect(data <= end, "segment outside the stride", wqe.opcode, stride);
    if (wqe.opcode == VHCA_WQE_ATOMIC_WRITE) {
        /* Its 8 bytes are the segment's last field (vhca_wqe_atomic.swap),
         * never SGEs or inline data after it. */
        expect(wqe.inline_data == data - 8 && wqe.inline_len == 8 &&
               wqe.length == 8, "atomic write operand", wqe.inline_len, 0);
        expect(buf[10] == 0 && !(wqe.flags & VHCA_WQE_F_INLINE),
               "atomic write with SGEs or inline data", buf[10], wqe.flags);
        expect(reliable_sender(qp_type), "atomic write off RC/XRC", qp_type,
               0);
    } else if (wqe.inline_len) {
        expect(wqe.inline_data == data, "inline data offset", 0, 0);
        expect(wqe.flags & VHCA_WQE_F_INLINE, "inline without flag", 0, 0);
        expect(wqe.inline_len <= max_inline, "inline above max_inline",
               wqe.inline_len, max_inline);
        expect(wqe.inline_data >= buf + sizeof(struct vhca_wqe_ctrl) &&
               wqe.inline_data <= end &&
               wqe.inline_len <= (size_t)(end - wqe.inline_data),
               "inline data outside the stride", wqe.inline_len, stride);
        expect(wqe.length == wqe.inline_len, "inline length", 0, 0);
        expect(wqe.num_sge == 0, "inline and SGEs", wqe.num_sge, 0);
    } else if (wqe.num_sge) {
        /* The SGEs are the last num_sge * 16 bytes the decoder read. */
        size_t sge_bytes = (size_t)wqe.num_sge * sizeof(struct vhca_sge);

        expect(wqe.num_sge <= VHCA_WQE_MAX_SGE, "num_sge", wqe.num_sge, 0);
        expect(wqe.num_sge == buf[10], "num_sge decode", wqe.num_sge,
               buf[10]);
        expect(sge_bytes <= (size_t)(end - data),
               "SGEs outside the stride", wqe.num_sge, stride);
        expect(wqe.length == check_sges(data, wqe.sge, wqe.num_sge),
               "length is the sum of the SGEs", wqe.num_sge, 0);
    }
    if (is_atomic(wqe.opcode)) {
        expect(wqe.length == 8, "atomic operand size",
               (unsigned)wqe.length, 0);
        expect(reliable_sender(qp_type), "atomic off RC/XRC", qp_type, 0);
    }
    if (wqe.opcode == VHCA_WQE_RDMA_READ) {
        expect(reliable_sender(qp_type), "RDMA READ off RC/XRC", qp_type, 0);
    }
    if (wqe.opcode == VHCA_WQE_FLUSH) {
        /* IBA 1.5 A19.4.1: RC/XRC, no payload (oA19-2); the range's
         * length and the FETH from the segment */
        expect(reliable_sender(qp_type), "FLUSH off RC/XRC", qp_type, 0);
        expect(wqe.num_sge == 0 && wqe.inline_len == 0 && wqe.length == 0,
               "FLUSH with data", wqe.num_sge, wqe.inline_len);
        expect(wqe.compare_add == le_at(buf + 32 + 12, 4) &&
               wqe.swap == VHCA_FETH(buf[32 + 16], buf[32 + 17]),
               "FLUSH segment", (unsigned)wqe.compare_add, 0);
    }
    if (wqe.opcode == VHCA_WQE_BIND_MW) {
        expect(reliable_sender(qp_type) || qp_type == VHCA_QPT_UC,
               "BIND_MW off a connected QP", qp_type, 0);
        expect(wqe.num_sge == 0 && wqe.inline_len == 0 && wqe.length == 0,
               "BIND_MW with data", wqe.num_sge, wqe.inline_len);
    }
    if (datagram(qp_type)) {
        expect(wqe.opcode != VHCA_WQE_RDMA_WRITE &&
               wqe.opcode != VHCA_WQE_RDMA_WRITE_WITH_IMM,
               "RDMA WRITE on a datagram QP", wqe.opcode, qp_type);
    }
}

static void fuzz_recv(const uint8_t *buf, uint32_t stride)
{
    static VhcaRecvWqe wqe;
    const char *why = NULL;
    uint8_t verr = vhca_wqe_decode_recv(buf, stride, &wqe, &why);
    uint32_t want_sge = buf[8];
    bool fits = want_sge <= VHCA_WQE_MAX_SGE &&
                sizeof(struct vhca_rwqe_hdr) +
                want_sge * sizeof(struct vhca_sge) <= stride;

    /* The whole rule is in vhca_hw_verbs.h: decide it independently. */
    expect(verr == (fits ? VHCA_VERR_NONE : VHCA_VERR_BAD_WQE),
           "receive verdict", verr, fits);
    expect((verr == VHCA_VERR_NONE) == (why == NULL), "reason iff failed",
           verr, 0);
    if (verr != VHCA_VERR_NONE) {
        return;
    }
    expect(wqe.wr_id == le_at(buf, 8), "recv wr_id", 0, 0);
    expect(wqe.num_sge == want_sge, "recv num_sge", wqe.num_sge, want_sge);
    expect(wqe.length == check_sges(buf + sizeof(struct vhca_rwqe_hdr),
                                    wqe.sge, wqe.num_sge),
           "recv length is the sum of the SGEs", 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool recv;
    uint32_t shift, stride, max_inline;
    uint8_t qp_type, *buf;

    if (size < HEADER_BYTES) {
        return 0;
    }
    recv = data[0] & 0x80;
    shift = recv ? VHCA_MIN_RQ_WQE_SHIFT +
                   (data[0] & 0x7f) % (VHCA_MAX_WQE_SHIFT -
                                       VHCA_MIN_RQ_WQE_SHIFT + 1)
                 : VHCA_MIN_SQ_WQE_SHIFT +
                   (data[0] & 0x7f) % (VHCA_MAX_WQE_SHIFT -
                                       VHCA_MIN_SQ_WQE_SHIFT + 1);
    stride = 1u << shift;
    qp_type = qp_types[data[1] % ARRAY_SIZE(qp_types)];
    max_inline = le_at(data + 2, 4);
    data += HEADER_BYTES;
    size -= HEADER_BYTES;

    buf = calloc(1, stride);
    memcpy(buf, data, MIN(size, stride));
    if (recv) {
        fuzz_recv(buf, stride);
    } else {
        fuzz_send(buf, stride, qp_type, max_inline);
    }
    free(buf);
    return 0;
}
