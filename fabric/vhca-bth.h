/*
 * vhca fabric library - the BTH opcodes of IBA 9.2.1 (table 35; 1.5
 * A19 for FLUSH and ATOMIC WRITE), stated once: the capture encoder
 * (vhca-capture.c) writes a frame's packets with them, and the capture
 * tier's checks (selftests/capture/capture_fabric.py) read tshark's
 * decode by them, as tools/vhca-wire-layout.c dumps them.
 *
 * An opcode is the transport (bits 7:5: VHCA_BTH_RC ...) OR'ed with the
 * operation (bits 4:0: VHCA_BTH_SEND_FIRST ...).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef VHCA_FABRIC_BTH_H
#define VHCA_FABRIC_BTH_H

enum vhca_bth_opcode {
    VHCA_BTH_RC = 0x00, VHCA_BTH_UC = 0x20, VHCA_BTH_UD = 0x60,
    VHCA_BTH_XRC = 0xa0,
    VHCA_BTH_SEND_FIRST = 0x00, VHCA_BTH_SEND_MIDDLE = 0x01,
    VHCA_BTH_SEND_LAST = 0x02, VHCA_BTH_SEND_LAST_IMM = 0x03,
    VHCA_BTH_SEND_ONLY = 0x04, VHCA_BTH_SEND_ONLY_IMM = 0x05,
    VHCA_BTH_WRITE_FIRST = 0x06, VHCA_BTH_WRITE_MIDDLE = 0x07,
    VHCA_BTH_WRITE_LAST = 0x08, VHCA_BTH_WRITE_LAST_IMM = 0x09,
    VHCA_BTH_WRITE_ONLY = 0x0a, VHCA_BTH_WRITE_ONLY_IMM = 0x0b,
    VHCA_BTH_READ_REQUEST = 0x0c, VHCA_BTH_READ_RESP_FIRST = 0x0d,
    VHCA_BTH_READ_RESP_MIDDLE = 0x0e, VHCA_BTH_READ_RESP_LAST = 0x0f,
    VHCA_BTH_READ_RESP_ONLY = 0x10, VHCA_BTH_ACK = 0x11,
    VHCA_BTH_ATOMIC_ACK = 0x12, VHCA_BTH_CMP_SWAP = 0x13,
    VHCA_BTH_FETCH_ADD = 0x14, VHCA_BTH_SEND_LAST_INV = 0x16,
    VHCA_BTH_SEND_ONLY_INV = 0x17, VHCA_BTH_FLUSH = 0x1c,
    VHCA_BTH_ATOMIC_WRITE = 0x1d,
};

/* Bytes of the headers every packet has (IBA 7.7, 9.2, 7.8). */
#define VHCA_LRH_SIZE   8
#define VHCA_GRH_SIZE   40
#define VHCA_BTH_SIZE   12
#define VHCA_ICRC_SIZE  4
#define VHCA_VCRC_SIZE  2

#endif /* VHCA_FABRIC_BTH_H */
