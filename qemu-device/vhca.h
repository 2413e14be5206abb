/*
 * vhca - virtual InfiniBand HCA: private state shared by the device files.
 *
 * vhca.c         PCI device, BAR 0 registers, doorbells, reset, properties
 * vhca-cmd.c     command queue: fetch, decode, validate, execute
 * vhca-eq.c      event queues: EQE writing, owner bit, arming, MSI-X
 * vhca-fabric.c  fabric, embedded subnet manager, port state and events
 * vhca-verbs.h   data path: memory regions, CQs, QPs, WQE execution
 *
 * Every piece of state below is touched only with the BQL held: MMIO
 * handlers, the bottom halves, timers, netdev receives and QOM property
 * setters all run under it, and the sq-poll thread takes it for each pass
 * (Documentation/device-qemu.md "Threading model").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_INFINIBAND_VHCA_H
#define HW_INFINIBAND_VHCA_H

#include "vhca-qemu-compat.h"
#include "qemu/bitmap.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "vhca_hw.h"
#include "vhca-pma.h"
#include "vhca-sma.h"
#include "vhca-sm-state.h"
#include "vhca-trap.h"
#include "vhca-link-faults.h"
#include "net/net.h"
#include "vhca-verbs.h"
#include "vhca-sqpoll.h"

#define TYPE_VHCA "vhca"
OBJECT_DECLARE_SIMPLE_TYPE(VhcaState, VHCA)

/* Device limits of this implementation (reported by QUERY_DEVICE). */
#define VHCA_MAX_PD                 1024
#define VHCA_MAX_COMP_VECTORS       (VHCA_MAX_VECTORS - 1)
#define VHCA_MAX_DB_PAGES           4096
/* dm-size: BAR 3 (a 32-bit BAR) stays small; mlx5's MEMIC is 128-256 KiB. */
#define VHCA_MAX_DM_SIZE            (16u << 20)
#define VHCA_DEFAULT_DM_SIZE        (256u << 10)
#define VHCA_FW_VERSION             VHCA_FW_VERSION_PACK(1, 0, 0)
/* QEMU's locally administered OUI (52:54:00), also used for its MACs. */
#define VHCA_VENDOR_OUI             0x525400
#define VHCA_MAX_MSG_SZ             0x80000000u
#define VHCA_SUBNET_TIMEOUT         18          /* 4.096 us * 2^18, ~1 s */

/*
 * IBA 14.2.5.6 PortInfo:CapabilityMask bits a CA without an SM reports
 * after reset; SET_PORT_CAP adds the agents' bits (VHCA_PORT_CAP_SETTABLE).
 */
#define VHCA_PORT_CAP_SYS_IMAGE_GUID_SUP    (1u << 11)
#define VHCA_PORT_CAP_FLAGS \
    (VHCA_PORT_CAP_SL_MAP | VHCA_PORT_CAP_SYS_IMAGE_GUID_SUP | \
     VHCA_PORT_CAP_CM | VHCA_PORT_CAP_CLIENT_REREG)

/* IB codes of the (fixed) link the ports pretend to have. */
#define VHCA_WIDTH_4X               2
#define VHCA_SPEED_QDR              4

/* Commands processed per bottom-half run before yielding to the main loop. */
#define VHCA_CMD_BATCH              256

typedef struct VhcaFabric VhcaFabric;

typedef struct VhcaSa VhcaSa;
typedef struct VhcaLink VhcaLink;

/*
 * An event queue as the device sees it.  pi is the device's free-running
 * producer index, ci the consumer index last reported by the driver (the
 * low 24 bits, VHCA_DB_EQ_CI_MASK).
 */
typedef struct VhcaEq {
    bool valid;
    bool armed;
    uint8_t log_size;
    uint16_t vector;
    uint64_t base;
    uint32_t pi;
    uint32_t ci;
    /* The last arm that fired at once, for vhca_eq_arm_repeats(). */
    bool fired_on_arm;
    bool stuck;                     /* its repeat was logged */
    uint32_t fired_ci;
    uint32_t fired_pi;
} VhcaEq;

typedef struct VhcaPort {
    VhcaState *dev;
    VhcaFabric *fabric;             /* NULL until realize attaches it */
    VhcaLink *link;                 /* cabled out instead (vhca-link.c) */
    QTAILQ_ENTRY(VhcaPort) fabric_link;
    uint8_t num;                    /* 1..VHCA_MAX_PORTS */
    bool link_up;                   /* QOM property portN-link */
    uint8_t state;                  /* enum vhca_port_state */
    uint8_t phys_state;             /* enum vhca_port_phys_state */
    uint16_t lid;                   /* 0 until the SM assigns one */
    uint16_t last_lid;              /* previous non-zero LID, for LID_CHANGE */
    uint16_t sm_lid;
    uint64_t guid;
    uint32_t cap_mask;              /* PortInfo:CapabilityMask (SET_PORT_CAP) */
    VhcaPortSmConf sm_conf;         /* PortInfo fields an SM stores */
    VhcaPortCounters counters;      /* the PMA's (vhca-pma-hook.c) */
    uint8_t switch_port;            /* the fabric switch's port cabled here */
    VhcaTrap trap;                  /* its SMA's Trap 144 (vhca-port-trap.c) */
    VhcaFaultLink faults;           /* a cabled link's (vhca-port-faults.c) */
    QEMUTimer *fault_timer;         /* delayed frames due */
    QEMUTimer *flap_timer;          /* a flap rule's link comes back */
    /* its pcapng capture, or NULL (vhca-port-capture.c) */
    struct VhcaCapture *capture;
    char *capture_path, *capture_filter;
} VhcaPort;

struct VhcaState {
    PCIDevice parent_obj;

    MemoryRegion reg_bar;
    MemoryRegion db_bar;
    QEMUBH *cmd_bh;

    /* Properties (see the comment at the top of vhca.c). */
    uint8_t num_ports;
    uint8_t comp_vectors;
    uint32_t db_pages;
    uint64_t node_guid_prop;
    char *fabric_name;
    VhcaFabricSmConf sm_conf;       /* the fabric's embedded SM */
    uint32_t rc_drop_request;       /* lose every Nth RC request (0: none) */
    uint32_t rc_drop_response;      /* lose every Nth answer to one */
    /* fault rules per packet (vhca-port-fault-rules.c) */
    struct VhcaFaultRules *fault_rules;
    NICConf port_nic[VHCA_MAX_PORTS];   /* portN-netdev: cabled out */
    bool sq_poll;                   /* poll send doorbell records */
    bool tag_matching;              /* TM SRQs (vhca-tm.c) */
    uint32_t rc_window;             /* RC across the wire: requests in
                                     * flight per QP, 1..VHCA_RC_WINDOW */
    uint32_t sq_poll_window_us;     /* ... for this long after activity */

    /* Fixed at realize. */
    uint64_t node_guid;
    uint32_t num_vectors;

    /* BAR 0 registers. */
    uint32_t status;
    uint64_t cmdq_base;
    uint32_t cmdq_log_size;
    uint64_t eq0_base;
    uint32_t eq0_log_size;

    /* Command queue: pi as last written to the doorbell, ci as processed. */
    uint32_t cmdq_pi;
    uint32_t cmdq_ci;

    /*
     * Set while the device does DMA: an access to its own BARs then is a
     * guest trying re-entrancy, and is ignored.
     */
    bool in_dma;

    VhcaEq eqs[VHCA_MAX_EQS];
    unsigned long pd_map[BITS_TO_LONGS(VHCA_MAX_PD)];
    uint8_t node_desc[VHCA_NODE_DESC_LEN];
    VhcaPort ports[VHCA_MAX_PORTS];

    /* Data path tables (vhca-verbs.h), allocated at realize. */
    VhcaMr *mrs;
    VhcaCq *cqs;
    VhcaQp *qps;
    VhcaSrq *srqs;
    VhcaXrcd *xrcds;                /* VHCA_MAX_XRCD (vhca-xrc.c) */
    VhcaMcast *mcast;
    QEMUBH *transport_bh;
    uint32_t rc_requests_sent;      /* since the last loss (vhca-rc.c) */
    uint32_t rc_responses_seen;
    uint64_t rc_dropped;            /* requests and answers lost, ever */
    uint64_t eq_stuck_arms;         /* vhca_eq_arm_repeats() arms, ever */
    uint64_t mr_list_entries;       /* page list entries of all regions */
    VhcaOdpFault odp_fault;         /* the last absent page (vhca-odp.c) */

    /* Device memory, BAR 3 (vhca-dm.c); dm-size 0: none. */
    uint32_t dm_size;
    MemoryRegion dm_bar;
    uint8_t *dm_host;
    VhcaDm *dms;                    /* by first page */
    unsigned long *dm_map;          /* pages in use */

    /* The send record polling thread (vhca-sqpoll.c); NULL: sq-poll=off. */
    struct VhcaSqPoller *sq_poller;

    /* The RAM of the DMA address space (vhca-dma-map.c). */
    struct VhcaRamMap *ram_map;
};

/* vhca-props.c: -device vhca's properties and their checks at realize */
void vhca_props_class_init(DeviceClass *dc);
bool vhca_check_properties(VhcaState *s, Error **errp);

/* vhca.c */
bool vhca_is_enabled(const VhcaState *s);
void vhca_fatal(VhcaState *s, enum vhca_fatal code);
MemTxResult vhca_dma_read(VhcaState *s, uint64_t addr, void *buf, uint32_t len);
MemTxResult vhca_dma_write(VhcaState *s, uint64_t addr, const void *buf,
                           uint32_t len);
bool vhca_dma_range_valid(VhcaState *s, uint64_t addr, uint64_t len);
bool vhca_dma_hits_own_bars(VhcaState *s, uint64_t addr, uint64_t len);

/* vhca-cmd.c */
void vhca_cmd_bh(void *opaque);
void vhca_cmd_reset(VhcaState *s);

/* vhca-eq.c */
typedef enum VhcaEqPostResult {
    VHCA_EQ_POSTED,
    VHCA_EQ_NOT_VALID,
    VHCA_EQ_OVERFLOW,
    VHCA_EQ_DMA_ERROR,
} VhcaEqPostResult;

bool vhca_eq_config_valid(VhcaState *s, uint64_t base, uint32_t log_size);
void vhca_eq_setup(VhcaState *s, uint32_t eqn, uint64_t base,
                   uint8_t log_size, uint16_t vector);
void vhca_eq_teardown(VhcaState *s, uint32_t eqn);
VhcaEqPostResult vhca_eq_post(VhcaState *s, uint32_t eqn,
                              const struct vhca_eqe *eqe);
bool vhca_eq0_post(VhcaState *s, const struct vhca_eqe *eqe);
void vhca_eq_doorbell(VhcaState *s, uint32_t value);
void vhca_eq_reset(VhcaState *s);
void vhca_eq_props_init(Object *obj);

/* vhca-fabric.c */
bool vhca_fabric_attach(VhcaPort *port, const char *fabric_name,
                        const VhcaFabricSmConf *sm, Error **errp);
void vhca_fabric_detach(VhcaPort *port);
void vhca_port_set_link(VhcaPort *port, bool up);
void vhca_port_configure(VhcaPort *port, uint16_t lid, uint16_t sm_lid);
/* A new master sets the port again: ACTIVE, lid, sm_lid, ClientReregister. */
void vhca_port_reconfigure(VhcaPort *port, uint16_t lid, uint16_t sm_lid);
void vhca_port_sm_set(VhcaPort *port, const VhcaSmaPort *want);
void vhca_port_carrier(VhcaPort *port, bool up);
void vhca_ports_enable(VhcaState *s);
void vhca_ports_disable(VhcaState *s);
void vhca_port_attr(const VhcaPort *port, struct vhca_port_attr *attr);
void vhca_port_gid(const VhcaPort *port, uint32_t index, struct vhca_gid *gid);
VhcaPort *vhca_fabric_route(VhcaPort *src, uint16_t dlid);
typedef void (*VhcaPortFn)(VhcaPort *port, void *opaque);
void vhca_fabric_foreach_active(VhcaPort *src, VhcaPortFn fn, void *opaque);
void vhca_fabric_foreach_mcast(VhcaPort *src, uint16_t mlid, VhcaPortFn fn,
                               void *opaque);
VhcaSa *vhca_fabric_sa(VhcaPort *port);
VhcaPort *vhca_fabric_switch_port(VhcaPort *port, uint8_t n);
struct VhcaSwitchNode;
struct VhcaSwitchNode *vhca_fabric_switch_node(VhcaPort *port,
                                               struct VhcaSwitchNode *scratch);
uint16_t vhca_fabric_switch_lid(VhcaPort *port);
void vhca_fabric_switch_repress(VhcaPort *port, const uint8_t *req);
/* vhca-port-trap.c */
void vhca_port_trap_init(VhcaPort *port);
void vhca_port_cap_changed(VhcaPort *port);
bool vhca_port_trap_repress(VhcaPort *port, const uint8_t *req);
bool vhca_fabric_sm_off(const VhcaPort *port);
/* vhca-fabric-sm.c: the embedded SM: SMInfo, traps, the ports it looks at */
VhcaSmaAction vhca_fabric_sm_smp(VhcaPort *port, const uint8_t *req, bool dr,
                                 uint8_t *resp);
void vhca_fabric_sm_cap_changed(VhcaPort *port);
VhcaPortCounters *vhca_fabric_switch_counters(VhcaPort *port);
uint8_t vhca_fabric_switch_counters_all(VhcaPort *port,
                                        VhcaPortCounters **out);

#endif /* HW_INFINIBAND_VHCA_H */
