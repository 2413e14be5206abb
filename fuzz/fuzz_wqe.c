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
 * responder's check); an opcode the QP type may post, with the segment
 * its row names (the opcode table of vhca_hw_wqe_rules.h, which
 * driver/tests/wqe_rules_test.cpp checks against IBA 9.2: not restated
 * here); no unknown flag; and each decoded field equal to the bytes
 * written, at the offsets of the uapi structs.
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

/* Where a field of a uapi struct sits in the bytes. */
#define AT(buf, type, field)    ((buf) + offsetof(struct type, field))
#define LE_FIELD(buf, type, field) \
    le_at(AT(buf, type, field), sizeof(((struct type *)0)->field))

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

/* The SGE array decoded from bytes at sges, and the sum of its lengths. */
static uint64_t check_sges(const uint8_t *sges, const VhcaSge *sge,
                           uint32_t num_sge)
{
    uint64_t sum = 0;
    uint32_t i;

    for (i = 0; i < num_sge; i++) {
        const uint8_t *raw = sges + i * sizeof(struct vhca_sge);

        expect(sge[i].addr == LE_FIELD(raw, vhca_sge, addr), "sge addr", i,
               num_sge);
        expect(sge[i].length == LE_FIELD(raw, vhca_sge, length), "sge length",
               i, num_sge);
        expect(sge[i].lkey == LE_FIELD(raw, vhca_sge, lkey), "sge lkey", i,
               num_sge);
        sum += sge[i].length;
    }
    return sum;
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
    expect(wqe.wr_id == LE_FIELD(buf, vhca_wqe_ctrl, wr_id), "wr_id", 0, 0);
    expect(wqe.opcode == *AT(buf, vhca_wqe_ctrl, opcode) &&
           wqe.flags == *AT(buf, vhca_wqe_ctrl, flags), "opcode/flags",
           wqe.opcode, *AT(buf, vhca_wqe_ctrl, opcode));
    /* The table's row: a QP type that may post it (none for the XRC
     * target, which has no send queue). */
    expect(vhca_wqe_opcode_allowed(wqe.opcode, qp_type),
           "opcode the QP type may not post", wqe.opcode, qp_type);
    expect(wqe.xrc_srqn == (LE_FIELD(buf, vhca_wqe_ctrl, xrc_srqn) & 0xffffff),
           "xrc_srqn", wqe.xrc_srqn, 0);
    expect(!(wqe.flags & ~(VHCA_WQE_F_SIGNALED | VHCA_WQE_F_SOLICITED |
                           VHCA_WQE_F_FENCE | VHCA_WQE_F_INLINE)),
           "unknown flag accepted", wqe.flags, 0);
    expect(wqe.length <= VHCA_MAX_MSG_BYTES, "length above max_msg_sz",
           (unsigned)wqe.length, 0);
    data = buf + sizeof(struct vhca_wqe_ctrl) +
           vhca_wqe_segment_size(wqe.opcode, qp_type);
    expect(data <= end, "segment outside the stride", wqe.opcode, stride);
    if (wqe.opcode == VHCA_WQE_ATOMIC_WRITE) {
        /* Its 8 bytes are the segment's last field (vhca_wqe_atomic.swap),
         * never SGEs or inline data after it. */
        expect(wqe.inline_data == data - 8 && wqe.inline_len == 8 &&
               wqe.length == 8, "atomic write operand", wqe.inline_len, 0);
        expect(*AT(buf, vhca_wqe_ctrl, num_sge) == 0 &&
               !(wqe.flags & VHCA_WQE_F_INLINE),
               "atomic write with SGEs or inline data",
               *AT(buf, vhca_wqe_ctrl, num_sge), wqe.flags);
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
        expect(wqe.num_sge == *AT(buf, vhca_wqe_ctrl, num_sge),
               "num_sge decode", wqe.num_sge, *AT(buf, vhca_wqe_ctrl, num_sge));
        expect(sge_bytes <= (size_t)(end - data),
               "SGEs outside the stride", wqe.num_sge, stride);
        expect(wqe.length == check_sges(data, wqe.sge, wqe.num_sge),
               "length is the sum of the SGEs", wqe.num_sge, 0);
    }
    if (vhca_wqe_segment_size(wqe.opcode, qp_type) ==
            sizeof(struct vhca_wqe_atomic) && vhca_wqe_carries_data(wqe.opcode)) {
        expect(wqe.length == 8, "atomic operand size",     /* CAS, FAA */
               (unsigned)wqe.length, 0);
    }
    if (!vhca_wqe_carries_data(wqe.opcode) && wqe.opcode != VHCA_WQE_ATOMIC_WRITE) {
        /* FLUSH (IBA 1.5 oA19-2) and the local operations: no payload */
        expect(wqe.num_sge == 0 && wqe.inline_len == 0 && wqe.length == 0,
               "data on an opcode without SGL", wqe.num_sge, wqe.inline_len);
    }
    if (wqe.opcode == VHCA_WQE_FLUSH) {
        /* the range's length and the FETH from the segment */
        const uint8_t *seg = buf + sizeof(struct vhca_wqe_ctrl);

        expect(wqe.compare_add == LE_FIELD(seg, vhca_wqe_flush, length) &&
               wqe.swap == VHCA_FETH(*AT(seg, vhca_wqe_flush, type),
                                     *AT(seg, vhca_wqe_flush, level)),
               "FLUSH segment", (unsigned)wqe.compare_add, 0);
    }
}

static void fuzz_recv(const uint8_t *buf, uint32_t stride)
{
    static VhcaRecvWqe wqe;
    const char *why = NULL;
    uint8_t verr = vhca_wqe_decode_recv(buf, stride, &wqe, &why);
    uint32_t want_sge = *AT(buf, vhca_rwqe_hdr, num_sge);
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
    expect(wqe.wr_id == LE_FIELD(buf, vhca_rwqe_hdr, wr_id), "recv wr_id", 0, 0);
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
