/*
 * What every SMP answer of the device's agents must be (fuzz_sma.c,
 * fuzz_switch_sma.c): the request with method GetResp, a known status
 * (with the D bit for directed route) and new data, nothing else changed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef FUZZ_SMP_ANSWER_CHECK_H
#define FUZZ_SMP_ANSWER_CHECK_H

#include "vhca-sma.h"

static void smp_answer_check(const uint8_t *req, const uint8_t *resp,
                             uint16_t status, bool dr,
                             void (*expect)(bool, const char *, unsigned,
                                            unsigned))
{
    uint16_t st = vhca_get_be16(resp + 4);
    size_t i;

    expect(resp[3] == 0x81, "method not GetResp", resp[3], 0);
    expect(st == (status | (dr ? 0x8000 : 0)), "status", st, status);
    expect(status == 0 || status == 0x0004 || status == 0x0008 ||
           status == 0x000c || status == 0x001c, "unknown status", status, 0);
    for (i = 0; i < VHCA_MAD_SIZE; i++) {
        if (i == 3 || i == 4 || i == 5 ||
            (i >= VHCA_SMP_DATA_OFF &&
             i < VHCA_SMP_DATA_OFF + VHCA_SMP_DATA_SIZE)) {
            continue;
        }
        expect(resp[i] == req[i], "header or path changed", i, resp[i]);
    }
}

#endif /* FUZZ_SMP_ANSWER_CHECK_H */
