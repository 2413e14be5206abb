/*
 * vhca - virtual InfiniBand host channel adapter (PCI device model)
 *
 * The device ABI (registers, doorbells, commands, EQEs) is uapi/vhca_hw.h,
 * which the patch series puts unchanged next to this file;
 * Documentation/device.md describes it in prose.  This file holds the PCI
 * device: BAR 0 registers, the doorbell BAR, MSI-X and reset; its
 * properties, their checks and their documentation are vhca-props.c.
 *
 * The device cannot be migrated (its state lives partly in the fabric).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "vhca-port-faults.h"
#include "vhca-port-capture.h"
#include "vhca-port-fault-rules.h"
#include "migration/vmstate.h"
#include "vhca-qemu-compat.h"
#include "vhca.h"
#include "vhca-link.h"
#include "vhca-dma-map.h"
#include "trace.h"

#define VHCA_DEFAULT_NODE_DESC  "QEMU vhca"

bool vhca_is_enabled(const VhcaState *s)
{
    return s->status & VHCA_STATUS_ENABLED;
}

/*
 * Stop all queue processing until the next reset.  The ports go down
 * without events: there is no working EQ left to report them on.
 */
void vhca_fatal(VhcaState *s, enum vhca_fatal code)
{
    if (s->status & VHCA_STATUS_FATAL) {
        return;
    }
    trace_vhca_fatal(code);
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: fatal error %u, device stopped\n",
                  code);
    s->status = VHCA_STATUS_FATAL | ((uint32_t)code << 8);
    qemu_bh_cancel(s->cmd_bh);
    vhca_ports_disable(s);
}

/*
 * Whether [addr, addr + len) touches one of the device's own memory BARs
 * (registers, MSI-X table and PBA, doorbells) where they are mapped now.
 * The device never DMAs into itself: such an access would be obeyed by the
 * MSI-X table, silently dropped by the registers (in_dma) and reported as a
 * success either way.  Bus addresses are compared; a vIOMMU's DMA window
 * does not contain the PCI windows (Linux reserves them), so no IOVA given
 * to the device can equal a BAR address.
 */
bool vhca_dma_hits_own_bars(VhcaState *s, uint64_t addr, uint64_t len)
{
    PCIDevice *pdev = &s->parent_obj;   /* no QOM cast check: every DMA */
    uint64_t last = addr + len - 1;
    int bar;

    if (len == 0) {
        return false;
    }
    if (last < addr) {
        return true;            /* wraps: cannot be guest memory either */
    }
    for (bar = 0; bar < PCI_ROM_SLOT; bar++) {
        const PCIIORegion *region = &pdev->io_regions[bar];
        pcibus_t start = pci_get_bar_addr(pdev, bar);

        if (!region->size || start == PCI_BAR_UNMAPPED ||
            (region->type & PCI_BASE_ADDRESS_SPACE_IO)) {
            continue;
        }
        if (addr <= start + region->size - 1 && start <= last) {
            return true;
        }
    }
    return false;
}

/*
 * All guest memory accesses go through these, so that the re-entrancy
 * guard (s->in_dma) and the own-BAR check cover every one of them.
 */
MemTxResult vhca_dma_read(VhcaState *s, uint64_t addr, void *buf, uint32_t len)
{
    MemTxResult res;

    if (vhca_dma_hits_own_bars(s, addr, len)) {
        trace_vhca_dma_error("read-own-bar", addr, len);
        return MEMTX_ACCESS_ERROR;
    }
    s->in_dma = true;
    res = pci_dma_read(PCI_DEVICE(s), addr, buf, len);
    s->in_dma = false;
    if (res != MEMTX_OK) {
        trace_vhca_dma_error("read", addr, len);
    }
    return res;
}

MemTxResult vhca_dma_write(VhcaState *s, uint64_t addr, const void *buf,
                           uint32_t len)
{
    MemTxResult res;

    if (vhca_dma_hits_own_bars(s, addr, len)) {
        trace_vhca_dma_error("write-own-bar", addr, len);
        return MEMTX_ACCESS_ERROR;
    }
    s->in_dma = true;
    res = pci_dma_write(PCI_DEVICE(s), addr, buf, len);
    s->in_dma = false;
    if (res != MEMTX_OK) {
        trace_vhca_dma_error("write", addr, len);
    }
    return res;
}

/* Whether [addr, addr + len) is memory the guest may hand the device. */
bool vhca_dma_range_valid(VhcaState *s, uint64_t addr, uint64_t len)
{
    if (len == 0 || addr + len < addr ||
        vhca_dma_hits_own_bars(s, addr, len)) {
        return false;
    }
    return dma_memory_valid(pci_get_address_space(PCI_DEVICE(s)), addr, len,
                            DMA_DIRECTION_FROM_DEVICE, MEMTXATTRS_UNSPECIFIED);
}

/*
 * The one reset: CONTROL.RESET, PCI function reset and system reset all
 * end here.  MSI-X state is PCI configuration, reset by the PCI core only.
 */
static void vhca_reset(VhcaState *s)
{
    int i;

    trace_vhca_reset();
    qemu_bh_cancel(s->cmd_bh);
    vhca_ports_disable(s);
    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        s->ports[i].cap_mask = VHCA_PORT_CAP_FLAGS;
        vhca_port_sm_conf_default(&s->ports[i].sm_conf);
        memset(&s->ports[i].counters, 0, sizeof(s->ports[i].counters));
    }
    s->status = 0;
    s->cmdq_base = 0;
    s->cmdq_log_size = 0;
    s->eq0_base = 0;
    s->eq0_log_size = 0;
    s->rc_requests_sent = 0;
    s->rc_responses_seen = 0;
    vhca_cmd_reset(s);
    vhca_eq_reset(s);
    vhca_verbs_reset(s);
    vhca_dm_reset(s);       /* after the regions on it */
    bitmap_zero(s->pd_map, VHCA_MAX_PD);
    memset(s->node_desc, 0, sizeof(s->node_desc));
    pstrcpy((char *)s->node_desc, sizeof(s->node_desc),
            VHCA_DEFAULT_NODE_DESC);
}

static bool vhca_queue_config_valid(VhcaState *s, uint64_t base,
                                    uint32_t log_size, uint32_t min_log,
                                    uint32_t max_log, uint32_t entry_size)
{
    if (base == 0 || (base & (VHCA_QUEUE_ALIGN - 1)) ||
        log_size < min_log || log_size > max_log) {
        return false;
    }
    return vhca_dma_range_valid(s, base, (uint64_t)entry_size << log_size);
}

/* CONTROL.ENABLE: validate the queue registers and go live. */
static void vhca_enable(VhcaState *s)
{
    if (s->status & (VHCA_STATUS_ENABLED | VHCA_STATUS_FATAL)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "vhca: ENABLE with status 0x%x ignored\n", s->status);
        trace_vhca_reject("enable-state", s->status);
        return;
    }
    if (!vhca_queue_config_valid(s, s->cmdq_base, s->cmdq_log_size,
                                 VHCA_MIN_LOG_CMDQ, VHCA_MAX_LOG_CMDQ,
                                 sizeof(struct vhca_cmd))) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: bad command queue base 0x%"
                      PRIx64 " log size %u\n", s->cmdq_base, s->cmdq_log_size);
        trace_vhca_reject("cmdq-config", s->cmdq_log_size);
        vhca_fatal(s, VHCA_FATAL_BAD_CMDQ_CONFIG);
        return;
    }
    if (!vhca_eq_config_valid(s, s->eq0_base, s->eq0_log_size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: bad EQ 0 base 0x%" PRIx64
                      " log size %u\n", s->eq0_base, s->eq0_log_size);
        trace_vhca_reject("eq0-config", s->eq0_log_size);
        vhca_fatal(s, VHCA_FATAL_BAD_EQ0_CONFIG);
        return;
    }
    vhca_eq_setup(s, 0, s->eq0_base, s->eq0_log_size, 0);
    s->cmdq_pi = 0;
    s->cmdq_ci = 0;
    s->status = VHCA_STATUS_ENABLED;
    trace_vhca_enable(s->cmdq_base, s->cmdq_log_size, s->eq0_base,
                      s->eq0_log_size);
    vhca_ports_enable(s);
}

static uint32_t vhca_caps(const VhcaState *s)
{
    return s->num_ports | (s->num_vectors << 8) |
           (VHCA_MAX_LOG_CMDQ << 16) | ((uint32_t)VHCA_MAX_LOG_EQ << 24);
}

static uint64_t vhca_reg_read(void *opaque, hwaddr addr, unsigned size)
{
    VhcaState *s = opaque;
    uint32_t val = 0;

    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %u-byte register read at 0x%"
                      HWADDR_PRIx " ignored\n", size, addr);
        trace_vhca_reject("reg-read-size", addr);
        return 0;
    }
    switch (addr) {
    case VHCA_REG_VERSION:
        val = (VHCA_ABI_MAJOR << 16) | VHCA_ABI_MINOR;
        break;
    case VHCA_REG_CAPS:
        val = vhca_caps(s);
        break;
    case VHCA_REG_DB_PAGES:
        val = s->db_pages;
        break;
    case VHCA_REG_STATUS:
        val = s->status;
        break;
    case VHCA_REG_CONTROL:
        val = 0;
        break;
    case VHCA_REG_CMDQ_BASE_LO:
        val = (uint32_t)s->cmdq_base;
        break;
    case VHCA_REG_CMDQ_BASE_HI:
        val = s->cmdq_base >> 32;
        break;
    case VHCA_REG_CMDQ_LOG_SIZE:
        val = s->cmdq_log_size;
        break;
    case VHCA_REG_CMDQ_CI:
        val = s->cmdq_ci;
        break;
    case VHCA_REG_EQ0_BASE_LO:
        val = (uint32_t)s->eq0_base;
        break;
    case VHCA_REG_EQ0_BASE_HI:
        val = s->eq0_base >> 32;
        break;
    case VHCA_REG_EQ0_LOG_SIZE:
        val = s->eq0_log_size;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: read of unknown register 0x%"
                      HWADDR_PRIx "\n", addr);
        trace_vhca_reject("reg-read-unknown", addr);
        break;
    }
    trace_vhca_reg_read(addr, val);
    return val;
}

/* The queue registers are read-only while the queues are live. */
static bool vhca_queue_reg_writable(VhcaState *s, hwaddr addr)
{
    if (vhca_is_enabled(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: write to queue register 0x%"
                      HWADDR_PRIx " while enabled ignored\n", addr);
        trace_vhca_reject("reg-write-enabled", addr);
        return false;
    }
    return true;
}

static void vhca_reg_write(void *opaque, hwaddr addr, uint64_t data,
                           unsigned size)
{
    VhcaState *s = opaque;
    uint32_t val = data;

    if (size != 4 || (addr & 3) || s->in_dma) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %u-byte register write at 0x%"
                      HWADDR_PRIx "%s ignored\n", size, addr,
                      s->in_dma ? " by the device's own DMA" : "");
        trace_vhca_reject("reg-write-size", addr);
        return;
    }
    trace_vhca_reg_write(addr, val);
    switch (addr) {
    case VHCA_REG_CONTROL:
        if (val & VHCA_CONTROL_RESET) {
            vhca_reset(s);
        } else if (val & VHCA_CONTROL_ENABLE) {
            vhca_enable(s);
        }
        break;
    case VHCA_REG_CMDQ_BASE_LO:
        if (vhca_queue_reg_writable(s, addr)) {
            s->cmdq_base = deposit64(s->cmdq_base, 0, 32, val);
        }
        break;
    case VHCA_REG_CMDQ_BASE_HI:
        if (vhca_queue_reg_writable(s, addr)) {
            s->cmdq_base = deposit64(s->cmdq_base, 32, 32, val);
        }
        break;
    case VHCA_REG_CMDQ_LOG_SIZE:
        if (vhca_queue_reg_writable(s, addr)) {
            s->cmdq_log_size = val;
        }
        break;
    case VHCA_REG_EQ0_BASE_LO:
        if (vhca_queue_reg_writable(s, addr)) {
            s->eq0_base = deposit64(s->eq0_base, 0, 32, val);
        }
        break;
    case VHCA_REG_EQ0_BASE_HI:
        if (vhca_queue_reg_writable(s, addr)) {
            s->eq0_base = deposit64(s->eq0_base, 32, 32, val);
        }
        break;
    case VHCA_REG_EQ0_LOG_SIZE:
        if (vhca_queue_reg_writable(s, addr)) {
            s->eq0_log_size = val;
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: write to read-only or unknown "
                      "register 0x%" HWADDR_PRIx "\n", addr);
        trace_vhca_reject("reg-write-ro", addr);
        break;
    }
}

static const MemoryRegionOps vhca_reg_ops = {
    .read = vhca_reg_read,
    .write = vhca_reg_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* Accept every size so that the handlers can ignore the wrong ones. */
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* Doorbells are write-only; the one readable register is the device
 * clock (VHCA_DB_CLOCK) of every page, read with one 64-bit access. */
static uint64_t vhca_db_read(void *opaque, hwaddr addr, unsigned size)
{
    VhcaState *s = opaque;

    if (size == 8 && addr % VHCA_DB_PAGE_SIZE == VHCA_DB_CLOCK &&
        addr / VHCA_DB_PAGE_SIZE < s->db_pages) {
        return vhca_clock_ns();
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vhca: %u-byte doorbell read at 0x%"
                  HWADDR_PRIx " (only the 64-bit clock at 0x%x is "
                  "readable)\n", size, addr, VHCA_DB_CLOCK);
    trace_vhca_db_read_rejected(addr, size);
    return 0;
}

/* Doorbells only record and kick: the work happens in the bottom half. */
static void vhca_db_write(void *opaque, hwaddr addr, uint64_t data,
                          unsigned size)
{
    VhcaState *s = opaque;
    uint32_t page = addr / VHCA_DB_PAGE_SIZE;
    hwaddr offset = addr % VHCA_DB_PAGE_SIZE;
    uint32_t val = data;

    if (size == 8 && offset >= VHCA_DB_SQ && !(addr & 7) && !s->in_dma &&
        page < s->db_pages) {
        trace_vhca_doorbell(offset, val);
        vhca_verbs_doorbell(s, page, offset, data);
        return;
    }
    if (size != 4 || (addr & 3) || s->in_dma || page != 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: %u-byte doorbell write at 0x%"
                      HWADDR_PRIx " ignored (only 32-bit writes to page 0 "
                      "are doorbells in this ABI version)\n", size, addr);
        trace_vhca_reject("db-write", addr);
        return;
    }
    trace_vhca_doorbell(offset, val);
    switch (offset) {
    case VHCA_DB_CMDQ_PI:
        if (!vhca_is_enabled(s)) {
            qemu_log_mask(LOG_GUEST_ERROR, "vhca: command doorbell while "
                          "not enabled ignored\n");
            trace_vhca_reject("db-cmdq-disabled", val);
            return;
        }
        s->cmdq_pi = val;
        qemu_bh_schedule(s->cmd_bh);
        break;
    case VHCA_DB_EQ:
        vhca_eq_doorbell(s, val);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "vhca: write to unknown doorbell 0x%"
                      HWADDR_PRIx "\n", offset);
        trace_vhca_reject("db-unknown", offset);
        break;
    }
}

static const MemoryRegionOps vhca_db_ops = {
    .read = vhca_db_read,
    .write = vhca_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static uint64_t vhca_auto_node_guid(void)
{
    static uint32_t instance;

    instance++;
    return ((uint64_t)VHCA_VENDOR_OUI << 40) |
           ((uint64_t)(getpid() & 0xffffff) << 16) |
           ((uint64_t)(instance & 0xfff) << 4);
}

static void vhca_teardown(PCIDevice *pdev)
{
    VhcaState *s = VHCA(pdev);
    int i;

    vhca_dma_map_unrealize(s);
    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        vhca_fabric_detach(&s->ports[i]);
        vhca_link_detach(&s->ports[i]);
        vhca_port_capture_free(&s->ports[i]);
    }
    vhca_fault_rules_free(s);
    if (s->cmd_bh) {
        qemu_bh_delete(s->cmd_bh);
        s->cmd_bh = NULL;
    }
    vhca_verbs_unrealize(s);
    vhca_dm_unrealize(s);
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
}

/* The sq-poll thread's passes touch the device: join it first */
static void vhca_unrealize(PCIDevice *pdev)
{
    vhca_sqpoll_unrealize(VHCA(pdev));
    vhca_teardown(pdev);
}

static bool vhca_realize_device(PCIDevice *pdev, Error **errp)
{
    VhcaState *s = VHCA(pdev);
    uint64_t db_bar_size;
    uint32_t i;

    s->num_vectors = 1 + s->comp_vectors;
    s->node_guid = s->node_guid_prop ? s->node_guid_prop
                                     : vhca_auto_node_guid();

    pci_config_set_interrupt_pin(pdev->config, 0);
    memory_region_init_io(&s->reg_bar, OBJECT(s), &vhca_reg_ops, s,
                          "vhca-regs", VHCA_REG_BAR_SIZE);
    pci_register_bar(pdev, VHCA_REG_BAR, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->reg_bar);

    db_bar_size = pow2ceil((uint64_t)s->db_pages * VHCA_DB_PAGE_SIZE);
    memory_region_init_io(&s->db_bar, OBJECT(s), &vhca_db_ops, s,
                          "vhca-doorbells", db_bar_size);
    pci_register_bar(pdev, VHCA_DB_BAR, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->db_bar);

    if (msix_init_exclusive_bar(pdev, s->num_vectors, VHCA_MSIX_BAR, errp)) {
        return false;
    }
    if (!vhca_dm_realize(s, errp)) {
        msix_uninit_exclusive_bar(pdev);
        return false;
    }
    for (i = 0; i < s->num_vectors; i++) {
        msix_vector_use(pdev, i);
    }

    s->cmd_bh = qemu_bh_new(vhca_cmd_bh, s);
    vhca_verbs_init(s);
    for (i = 0; i < s->num_ports; i++) {
        s->ports[i].guid = s->node_guid + s->ports[i].num;
        if (s->port_nic[i].peers.ncs[0]) {
            vhca_link_attach(&s->ports[i], &s->port_nic[i]);
        } else if (!vhca_fabric_attach(&s->ports[i], s->fabric_name,
                                           &s->sm_conf, errp)) {
            vhca_teardown(pdev);
            return false;
        }
        if (!vhca_port_capture_realize(&s->ports[i], errp)) {
            vhca_teardown(pdev);
            return false;
        }
    }
    vhca_reset(s);
    vhca_sqpoll_realize(s);
    vhca_dma_map_realize(s);
    return true;
}

static void vhca_realize(PCIDevice *pdev, Error **errp)
{
    if (vhca_check_properties(VHCA(pdev), errp)) {
        vhca_realize_device(pdev, errp);
    }
}

/* Every reset (bus, system, device_cold_reset) in its hold phase. */
static void vhca_reset_hold(Object *obj, ResetType type)
{
    vhca_reset(VHCA(obj));
}
VHCA_DEFINE_RESET_HOLD(vhca_reset_hold)

/* qom-set of portN-link: runs in the monitor, with the BQL held. */
static void vhca_port_link_set(Object *obj, uint32_t num, bool value,
                               Error **errp)
{
    VhcaState *s = VHCA(obj);

    if (DEVICE(obj)->realized && num > s->num_ports) {
        error_setg(errp, "vhca: the device has no port %u", num);
        return;
    }
    vhca_port_set_link(&s->ports[num - 1], value);
}

static bool vhca_port1_link_get(Object *obj, Error **errp)
{
    return VHCA(obj)->ports[0].link_up;
}

static void vhca_port1_link_set(Object *obj, bool value, Error **errp)
{
    vhca_port_link_set(obj, 1, value, errp);
}

static bool vhca_port2_link_get(Object *obj, Error **errp)
{
    return VHCA(obj)->ports[1].link_up;
}

static void vhca_port2_link_set(Object *obj, bool value, Error **errp)
{
    vhca_port_link_set(obj, 2, value, errp);
}

static void vhca_instance_init(Object *obj)
{
    VhcaState *s = VHCA(obj);
    int i;

    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        s->ports[i].dev = s;
        s->ports[i].num = i + 1;
        s->ports[i].link_up = true;
        s->ports[i].state = VHCA_PORT_DOWN;
        s->ports[i].phys_state = VHCA_PHYS_DISABLED;
    }
    object_property_add_bool(obj, "port1-link", vhca_port1_link_get,
                             vhca_port1_link_set);
    object_property_set_description(obj, "port1-link",
                                    "Physical link of port 1 (up = true)");
    object_property_add_bool(obj, "port2-link", vhca_port2_link_get,
                             vhca_port2_link_set);
    object_property_set_description(obj, "port2-link",
                                    "Physical link of port 2 (up = true)");
    vhca_rc_drop_props_init(obj);
    vhca_eq_props_init(obj);
    for (i = 0; i < VHCA_MAX_PORTS; i++) {
        vhca_port_faults_init(obj, &s->ports[i]);
    }
    vhca_port_capture_init(obj);
    vhca_fault_rules_props_init(obj);
}

static void vhca_instance_finalize(Object *obj)
{
    vhca_fault_rules_finalize(VHCA(obj));
}

static const VMStateDescription vmstate_vhca = {
    .name = "vhca",
    .unmigratable = 1,
};

static void vhca_class_init(ObjectClass *klass, VhcaClassData data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = vhca_realize;
    k->exit = vhca_unrealize;
    k->vendor_id = VHCA_PCI_VENDOR_ID;
    k->device_id = VHCA_PCI_DEVICE_ID;
    k->revision = VHCA_PCI_REVISION;
    k->class_id = VHCA_PCI_CLASS;
    k->subsystem_vendor_id = PCI_SUBVENDOR_ID_REDHAT_QUMRANET;
    k->subsystem_id = PCI_SUBDEVICE_ID_QEMU;
    dc->desc = "Virtual InfiniBand HCA";
    rc->phases.hold = VHCA_RESET_HOLD(vhca_reset_hold);
    dc->vmsd = &vmstate_vhca;
    vhca_props_class_init(dc);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo vhca_info = {
    .name = TYPE_VHCA,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VhcaState),
    .instance_init = vhca_instance_init,
    .instance_finalize = vhca_instance_finalize,
    .class_init = vhca_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void vhca_register_types(void)
{
    type_register_static(&vhca_info);
}

type_init(vhca_register_types)
