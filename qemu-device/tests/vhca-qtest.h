/*
 * vhca qtest library: the device driven register by register as a driver
 * would (bring-up, commands, EQ 0, MSI-X, ports), shared by every
 * vhca-*-test program.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef VHCA_QTEST_H
#define VHCA_QTEST_H

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
/* QEMU 9.2 moved the QObject headers from qapi/qmp/ to qobject/. */
#if __has_include("qobject/qdict.h")
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#else
#include "qapi/qmp/qdict.h"
#include "qapi/qmp/qlist.h"
#endif
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "libqos/malloc-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/infiniband/vhca/uapi/vhca_hw.h"

#define VHCA_DEVFN          QPCI_DEVFN(4, 0)
#define NODE_GUID           0x5254000000001230ull
#define CMDQ_LOG            4
#define EQ0_LOG             6
/* An address no RAM or device decodes. */
#define BAD_DMA_ADDR        0x100000000000ull
/* Virtual time after which the SM has certainly swept (10 ms delay). */
#define SM_SETTLE_NS        (100 * 1000 * 1000)
#define POLL_LIMIT          100000

typedef struct Vhca {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar reg;
    QPCIBar db;
    uint64_t cmdq;
    uint64_t eq0;
    uint64_t buf;           /* 4 KiB scratch for command inputs/outputs */
    uint32_t cmdq_log;
    uint32_t eq0_log;
    uint32_t cmd_pi;
    uint32_t eq0_ci;
    uint32_t next_token;
    /*
     * Port events that came while vhca_exec waited for its command's
     * completion (a link change from the cable is asynchronous to the
     * test's commands); vhca_collect_port_events returns them first.
     */
    struct vhca_eqe early_port_events[8];
    int n_early_port_events;
} Vhca;

void vhca_map(Vhca *v);
Vhca *vhca_start(const char *extra);
Vhca *vhca_start_unmapped(const char *extra);
Vhca *vhca_sibling(Vhca *v, int devfn);
void vhca_sibling_free(Vhca *w);
void vhca_stop(Vhca *v);
uint32_t rd(Vhca *v, uint32_t reg);
void wr(Vhca *v, uint32_t reg, uint32_t val);
void db_write(Vhca *v, uint32_t offset, uint32_t val);
void vhca_program(Vhca *v, uint64_t cmdq, uint32_t cmdq_log,
                  uint64_t eq0, uint32_t eq0_log);
void vhca_bringup(Vhca *v);
void vhca_arm_eq0(Vhca *v);
void vhca_submit(Vhca *v, struct vhca_cmd *cmd);
bool vhca_try_eqe(Vhca *v, struct vhca_eqe *eqe, int polls);
void vhca_next_eqe(Vhca *v, struct vhca_eqe *eqe);
void cmd_init(Vhca *v, struct vhca_cmd *cmd, uint16_t opcode);
void cmd_out(Vhca *v, struct vhca_cmd *cmd, uint32_t len);
uint8_t vhca_exec(Vhca *v, struct vhca_cmd *cmd, uint32_t result[2]);
uint8_t vhca_simple(Vhca *v, uint16_t opcode, uint32_t handle,
                    uint32_t result[2]);
uint8_t vhca_query_port(Vhca *v, uint8_t port,
                        struct vhca_port_attr *attr);
uint8_t vhca_query_table(Vhca *v, uint16_t opcode, uint8_t port,
                         uint16_t index, uint32_t result[2]);
uint8_t vhca_create_eq(Vhca *v, uint64_t base, uint8_t log_size,
                       uint16_t vector, uint32_t *eqn);
void vhca_assert_alive(Vhca *v);
uint32_t vhca_wait_fatal(Vhca *v);
void vhca_assert_fatal(Vhca *v, enum vhca_fatal code);
void qom_set_link(Vhca *v, const char *prop, bool up);
bool vhca_peripheral_has(QTestState *qts, const char *id);
bool vhca_device_add_refused(QTestState *qts, uint64_t guid,
                             const char *fabric, const char *bus,
                             bool embedded_sm, int sm_priority);
void vhca_pi_init(uint8_t *pi, uint16_t lid, uint16_t sm_lid, uint8_t state);
void vhca_mad_init(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version,
                   uint8_t method, uint64_t tid, uint16_t attr);
int vhca_collect_port_events(Vhca *v, struct vhca_eqe *events, int max);
void msix_route(Vhca *v, uint16_t vector, uint64_t addr, uint32_t data);
uint64_t msix_route_to_ram(Vhca *v, uint16_t vector);
bool msix_fired(Vhca *v, uint64_t word);
void vhca_wait_eqe_visible(Vhca *v);
void vhca_wait_eqes_visible(Vhca *v, uint32_t n);
uint64_t vhca_ram_end(Vhca *v);

#endif
