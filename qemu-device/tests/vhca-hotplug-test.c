/*
 * QTest testcase for vhca: hot-unplug and hot-plug again at the same PCI
 * address, as a guest sees it (issue 9).
 *
 * The second vhca sits behind a PCIe root port with native hot-plug (PCIe
 * 6.7.3, Slot Control).  Its BAR 3 (device memory, RAM) is mapped, as a
 * driver's probe leaves it; device_del pushes the attention button, the
 * "guest" turns the slot's power indicator and power off, QEMU unplugs the
 * device, and device_add puts it back at once, on the same fabric as the
 * first vhca.  Before the fix QEMU aborted there ("RAMBlock
 * 0000:00:05.0:00.0/vhca-dm already registered"): the old device's RAM
 * block outlives the unplug until RCU reclaims the flat views that mapped
 * it, and its name was still registered.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

#define HP_ROOT_PORT        QPCI_DEVFN(5, 0)
#define HP_BUS              1
#define HP_DEVFN            (HP_BUS << 8)       /* bus 1, device 0 */
#define HP_GUID             (NODE_GUID + 0x200)
#define HP_DM_ADDR          0xc0000000u         /* in the root port's window */
#define HP_DM_WINDOW        0xc000c000u         /* MEMORY_BASE/LIMIT: 1 MiB */
#define HP_CYCLES           3

#define HP_DEVICE_ARGS      "'driver': 'vhca', 'id': 'vhca1', 'bus': 'rp1', " \
                            "'ports': 1, 'node-guid': %" PRIu64

static QPCIDevice *hp_find(QPCIBus *bus, int devfn)
{
    QPCIDevice *d = qpci_device_find(bus, devfn);

    g_assert(d);
    return d;
}

/* What firmware and a driver's probe do: bus numbers, window, BAR 3. */
static void hp_map_dm(QPCIBus *bus, QPCIDevice *rp)
{
    QPCIDevice *dev;

    qpci_config_writel(rp, PCI_PRIMARY_BUS,
                       HP_BUS << 16 | HP_BUS << 8);     /* sub, sec, pri 0 */
    qpci_config_writel(rp, PCI_MEMORY_BASE, HP_DM_WINDOW);
    qpci_config_writew(rp, PCI_COMMAND,
                       PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
    dev = hp_find(bus, HP_DEVFN);
    qpci_config_writel(dev, PCI_BASE_ADDRESS_0 + 4 * VHCA_DM_BAR, HP_DM_ADDR);
    qpci_config_writew(dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
    g_free(dev);
}

/* The slot's power controller and power indicator (PCIe 7.5.3.10). */
static void hp_slot_power(QPCIDevice *rp, bool on)
{
    uint8_t exp = qpci_find_capability(rp, PCI_CAP_ID_EXP, 0);
    uint16_t ctl = qpci_config_readw(rp, exp + PCI_EXP_SLTCTL);

    ctl &= ~(PCI_EXP_SLTCTL_AIC | PCI_EXP_SLTCTL_PIC | PCI_EXP_SLTCTL_PCC);
    ctl |= PCI_EXP_SLTCTL_ATTN_IND_OFF;
    ctl |= on ? PCI_EXP_SLTCTL_PWR_IND_ON | PCI_EXP_SLTCTL_PWR_ON
              : PCI_EXP_SLTCTL_PWR_IND_OFF | PCI_EXP_SLTCTL_PWR_OFF;
    qpci_config_writew(rp, exp + PCI_EXP_SLTCTL, ctl);
}

/*
 * device_del, answered as a guest's pciehp does (the slot powered off:
 * QEMU unplugs the device there and then), and device_add at once, before
 * QEMU's RCU thread has reclaimed the old flat views (it waits for more
 * callbacks, up to 50 ms, when there are few): the old device's RAM block
 * still exists.
 */
static void hp_replug(QTestState *qts, QPCIDevice *rp)
{
    QDict *rsp;

    qtest_qmp_device_del_send(qts, "vhca1");
    hp_slot_power(rp, false);
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{" HP_DEVICE_ARGS "}}", (uint64_t)HP_GUID);
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_qmp_eventwait(qts, "DEVICE_DELETED");    /* the old one went */
    hp_slot_power(rp, true);
    g_assert_true(vhca_peripheral_has(qts, "vhca1"));
}

/*
 * Unplug with BAR 3 mapped and plug back at once, three times: QEMU lives,
 * the new device's device memory is fresh RAM (zero, not what was written
 * into the old one) and takes writes, and the other vhca on the fabric
 * still answers.  The first vhca's BARs stay unmapped until the end, as
 * in a guest whose driver has not probed it yet: every mapped BAR adds
 * flat views for the RCU thread to reclaim, and with enough of those it
 * does not wait, which would hide the bug.
 */
static void test_hotplug_replug_mapped(void)
{
    g_autofree char *extra = g_strdup_printf(
        " -global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off"
        " -device pcie-root-port,id=rp1,chassis=1,addr=05.0"
        " -device vhca,id=vhca1,bus=rp1,ports=1,node-guid=0x%" PRIx64,
        (uint64_t)HP_GUID);
    Vhca *v = vhca_start_unmapped(extra);
    QPCIDevice *rp = hp_find(v->bus, HP_ROOT_PORT);
    int i;

    for (i = 0; i < HP_CYCLES; i++) {
        hp_map_dm(v->bus, rp);
        g_assert_cmphex(qtest_readl(v->qts, HP_DM_ADDR), ==, 0);
        qtest_writel(v->qts, HP_DM_ADDR, 0xd0d0cafe + i);
        g_assert_cmphex(qtest_readl(v->qts, HP_DM_ADDR), ==, 0xd0d0cafe + i);
        hp_replug(v->qts, rp);
    }
    hp_map_dm(v->bus, rp);
    g_assert_cmphex(qtest_readl(v->qts, HP_DM_ADDR), ==, 0);
    vhca_map(v);
    vhca_bringup(v);
    vhca_assert_alive(v);
    g_free(rp);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/hotplug/replug-mapped", test_hotplug_replug_mapped);
    return g_test_run();
}
