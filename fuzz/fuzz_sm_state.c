/*
 * libFuzzer target: the state machine of a subnet manager
 * (fabric/vhca-sm-state.c), which decides the master of a subnet
 * from SMInfo (IBA 14.4) for the embedded SM beside a guest's opensm.
 *
 * Input: byte 0 this SM's state (any byte: states outside the four
 * too); byte 1 its priority (any byte); bytes 2..9 its GUID
 * (little-endian); byte 10 the Set sender's SMState (any byte); bytes
 * 11..14 the Set's AttributeModifier (little-endian, any value); byte 15
 * bit 0: the remote SM is the master this one polls; bytes 16..79 the
 * remote SM's SMInfo as it comes in an SMP's data (zero-padded); bytes
 * 80..88 a third SM (priority, GUID) for transitivity.
 *
 * Besides the sanitizers:
 * - SMInfo: encoding a decoded SMInfo gives back the bytes the fields
 *   cover (IBA 14.4.1: GUID, SM_Key, ActCount, Priority|SMState) and
 *   zeros after them; decoding an encoded one gives back its fields
 *   (priority and state to their 4 bits).
 * - vhca_sm_set_transition: status 0 or "invalid attribute value"; a
 *   refused Set leaves the state as it was; an accepted one leads to one
 *   of the four states, and agrees with a table written from the
 *   transitions of IBA 14.4 as opensm checks them
 *   (osm_sm_state_mgr_check_legality) and the sender each modifier needs.
 * - vhca_sm_outranks is a strict total order: irreflexive, asymmetric,
 *   total over distinct SMs, transitive.
 * - vhca_sm_judge: itself is ignored; a verdict for a master (HAND_OVER,
 *   STEP_DOWN, ASK_AGAIN) only by a MASTER about an SM that outranks it,
 *   MASTER_ALIVE only for the polled SM of a STANDBY or DISCOVERING one;
 *   states outside the four do nothing; each verdict agrees with a model
 *   of what opensm's osm_sminfo_rcv does with the remote's state.
 * - vhca_sm_state_name always gives a string.
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
#include "vhca-sma.h"
#include "vhca-sm-state.h"

#define INPUT_BYTES     89
#define SMINFO_AT       16
#define THIRD_AT        80
#define SMINFO_FIELDS   21      /* GUID, SM_Key, ActCount, Priority|SMState */
#define NO_STATE        0xff

static void expect(bool ok, const char *what, unsigned a, unsigned b)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sm_state: %s (%u, %u)\n", what, a, b);
        abort();
    }
}

static bool is_sm_state(unsigned state)
{
    return state <= VHCA_SM_STATE_MASTER;
}

/*
 * IBA 14.4 as opensm checks a SubnSet(SMInfo): next[state][mod] is the
 * state a legal request leads to, NO_STATE for a refused one.
 */
#define NO_ NO_STATE
#define NA_ VHCA_SM_STATE_NOT_ACTIVE
#define DI_ VHCA_SM_STATE_DISCOVERING
#define SB_ VHCA_SM_STATE_STANDBY
#define MA_ VHCA_SM_STATE_MASTER
static const uint8_t model_next[4][6] = {
    /* modifier:   0,  HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER */
    [NA_] = {    NO_,      NO_,         NO_,     NO_,     SB_,      NO_ },
    [DI_] = {    NO_,      MA_,         NO_,     NO_,     NO_,      NO_ },
    [SB_] = {    NO_,      MA_,         SB_,     NA_,     NO_,      DI_ },
    [MA_] = {    NO_,      MA_,         NO_,     NO_,     NO_,      NO_ },
};

/* ACKNOWLEDGE comes from a STANDBY, every other modifier from a MASTER. */
static unsigned model_sender(uint32_t mod)
{
    return mod == VHCA_SMINFO_ACKNOWLEDGE ? VHCA_SM_STATE_STANDBY
                                          : VHCA_SM_STATE_MASTER;
}

static unsigned model_set(unsigned state, uint32_t mod, unsigned sender)
{
    if (!is_sm_state(state) || mod == 0 || mod > VHCA_SMINFO_DISCOVER ||
        sender != model_sender(mod)) {
        return NO_STATE;
    }
    return model_next[state][mod];
}

static void check_sminfo_round_trip(const uint8_t *d)
{
    uint8_t enc[VHCA_SMP_DATA_SIZE], enc2[VHCA_SMP_DATA_SIZE];
    VhcaSmInfo smi, back;
    size_t i;

    vhca_sm_info_decode(d, &smi);
    expect(smi.priority <= VHCA_SM_PRIORITY_MAX && smi.state <= 0xf,
           "decoded priority or state wider than 4 bits", smi.priority,
           smi.state);
    vhca_sm_info_encode(&smi, enc);
    expect(memcmp(enc, d, SMINFO_FIELDS) == 0, "encode(decode) differs", 0, 0);
    for (i = SMINFO_FIELDS; i < VHCA_SMP_DATA_SIZE; i++) {
        expect(enc[i] == 0, "encode left a reserved byte set", i, enc[i]);
    }
    vhca_sm_info_decode(enc, &back);
    expect(back.guid == smi.guid && back.sm_key == smi.sm_key &&
           back.act_count == smi.act_count && back.priority == smi.priority &&
           back.state == smi.state, "decode(encode) differs", 0, 0);
    /* Fields wider than SMInfo's 4 bits are cut to them. */
    smi.priority = d[0];
    smi.state = d[1];
    vhca_sm_info_encode(&smi, enc2);
    vhca_sm_info_decode(enc2, &back);
    expect(back.priority == (d[0] & 0xf) && back.state == (d[1] & 0xf),
           "priority or state not cut to 4 bits", back.priority, back.state);
}

static void check_set(unsigned state, uint32_t mod, unsigned sender)
{
    unsigned want = model_set(state, mod, sender);
    uint8_t next = NO_STATE;
    uint16_t status = vhca_sm_set_transition(state, mod, sender, &next);

    expect(status == 0 || status == VHCA_MAD_STATUS_INVALID_ATTR_VALUE,
           "unknown status", status, mod);
    if (status) {
        expect(next == state, "a refused Set changed the state", state, next);
        expect(want == NO_STATE, "a legal Set refused", state, mod);
        return;
    }
    expect(is_sm_state(next), "a Set led outside the four states", state,
           next);
    expect(next == want, "a Set led elsewhere than IBA 14.4", next, want);
}

static void check_outranks(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb,
                           uint8_t pc, uint64_t gc)
{
    bool ab = vhca_sm_outranks(pa, ga, pb, gb);
    bool ba = vhca_sm_outranks(pb, gb, pa, ga);
    bool bc = vhca_sm_outranks(pb, gb, pc, gc);
    bool ac = vhca_sm_outranks(pa, ga, pc, gc);

    expect(!vhca_sm_outranks(pa, ga, pa, ga), "an SM outranks itself", pa, 0);
    expect(!(ab && ba), "two SMs outrank each other", pa, pb);
    expect(ab || ba || (pa == pb && ga == gb), "distinct SMs unordered",
           pa, pb);
    expect(!(ab && bc) || ac, "outranks not transitive", pa, pc);
}

/*
 * IBA 14.4.1.1 as opensm's osm_sminfo_rcv acts on an SMInfo it asked
 * for: a master gives the subnet to a higher standby, polls a higher
 * master, asks a higher discovering SM again; a polling standby (or
 * discovering SM) hears its master, or a higher standby that was one.
 */
static VhcaSmVerdict model_judge(unsigned state, bool higher, bool polled,
                                 unsigned remote_state)
{
    static const VhcaSmVerdict master_sees[4] = {
        [VHCA_SM_STATE_NOT_ACTIVE] = VHCA_SM_IGNORE,
        [VHCA_SM_STATE_DISCOVERING] = VHCA_SM_ASK_AGAIN,
        [VHCA_SM_STATE_STANDBY] = VHCA_SM_HAND_OVER,
        [VHCA_SM_STATE_MASTER] = VHCA_SM_STEP_DOWN,
    };

    if (state == VHCA_SM_STATE_MASTER) {
        return higher && remote_state < 4 ? master_sees[remote_state]
                                          : VHCA_SM_IGNORE;
    }
    if ((state == VHCA_SM_STATE_STANDBY ||
         state == VHCA_SM_STATE_DISCOVERING) && polled &&
        (remote_state == VHCA_SM_STATE_MASTER ||
         (remote_state == VHCA_SM_STATE_STANDBY && higher))) {
        return VHCA_SM_MASTER_ALIVE;
    }
    return VHCA_SM_IGNORE;
}

static void check_judge(unsigned state, uint8_t priority, uint64_t guid,
                        const VhcaSmInfo *remote, bool polled)
{
    VhcaSmVerdict v = vhca_sm_judge(state, priority, guid, remote, polled);
    bool higher = vhca_sm_outranks(remote->priority, remote->guid, priority,
                                   guid);

    expect(v <= VHCA_SM_ASK_AGAIN, "unknown verdict", v, state);
    if (remote->guid == guid || !is_sm_state(state)) {
        expect(v == VHCA_SM_IGNORE, "judged itself or from no state", v,
               state);
    }
    if (v == VHCA_SM_HAND_OVER || v == VHCA_SM_STEP_DOWN ||
        v == VHCA_SM_ASK_AGAIN) {
        expect(state == VHCA_SM_STATE_MASTER && higher,
               "a master's verdict without a higher SM", v, state);
    }
    if (v == VHCA_SM_MASTER_ALIVE) {
        expect(polled && (state == VHCA_SM_STATE_STANDBY ||
                          state == VHCA_SM_STATE_DISCOVERING),
               "master alive for an SM not polled", v, state);
    }
    if (remote->guid != guid) {
        expect(v == model_judge(state, higher, polled, remote->state),
               "a verdict other than IBA 14.4.1.1's", v, remote->state);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t in[INPUT_BYTES] = { 0 };
    uint8_t state, priority, sender;
    uint64_t guid;
    VhcaSmInfo remote;
    uint32_t mod;

    memcpy(in, data, MIN(size, sizeof(in)));
    state = in[0];
    priority = in[1];
    guid = vhca_get_le64(in + 2);
    sender = in[10];
    mod = vhca_get_le32(in + 11);

    check_sminfo_round_trip(in + SMINFO_AT);
    vhca_sm_info_decode(in + SMINFO_AT, &remote);
    check_set(state, mod, sender);
    /* The same request from the sender each modifier needs. */
    check_set(state, mod, model_sender(mod));
    check_outranks(priority, guid, remote.priority, remote.guid,
                   in[THIRD_AT], vhca_get_le64(in + THIRD_AT + 1));
    check_judge(state, priority, guid, &remote, in[15] & 1);
    /* The state in the SMInfo decides for the remote: judge every one. */
    check_judge(state & 3, priority & 0xf, guid, &remote, in[15] & 1);
    expect(vhca_sm_state_name(state) != NULL, "no state name", state, 0);
    return 0;
}
