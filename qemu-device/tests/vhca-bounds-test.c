/*
 * QTest testcase for vhca: every command at and past the edges of its
 * inputs.
 *
 * Lengths 0, one short, exact, maximum, one past the maximum; buffers at 0,
 * outside RAM, straddling the end of RAM, ending exactly at 2^64; ports 0
 * and past the last; table indexes at and past the table length; handles
 * never allocated, already freed, EQ 0; CREATE_EQ parameters; the EQ and PD
 * tables filled up.  Each answer is the status Documentation/device.md
 * ("Command queue") gives, a failed command changes nothing, and the
 * device keeps executing commands.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest.h"

/* A command of this ABI with valid inline input and its buffer sizes. */
typedef struct BoundsCmd {
    uint16_t opcode;
    uint32_t in_size;       /* bytes read at in_addr */
    uint32_t out_size;      /* bytes written at out_addr */
} BoundsCmd;

static const BoundsCmd bounds_cmds[] = {
    { VHCA_CMD_QUERY_DEVICE, 0, sizeof(struct vhca_device_attr) },
    { VHCA_CMD_QUERY_PORT, 0, sizeof(struct vhca_port_attr) },
    { VHCA_CMD_QUERY_GID, 0, sizeof(struct vhca_gid) },
    { VHCA_CMD_QUERY_PKEY, 0, 0 },
    { VHCA_CMD_SET_NODE_DESC, sizeof(struct vhca_node_desc), 0 },
    { VHCA_CMD_ALLOC_PD, 0, 0 },
};

static void bounds_cmd_init(Vhca *v, struct vhca_cmd *cmd, const BoundsCmd *c)
{
    cmd_init(v, cmd, c->opcode);
    cmd->in.table.port = 1;             /* QUERY_PORT/GID/PKEY: port 1 */
    if (c->in_size) {
        cmd->in_addr = cpu_to_le64(v->buf);
        cmd->in_len = cpu_to_le32(c->in_size);
    }
    if (c->out_size) {
        cmd_out(v, cmd, c->out_size);
    }
}

static uint8_t bounds_exec_out(Vhca *v, const BoundsCmd *c, uint32_t out_len,
                               uint64_t out_addr)
{
    struct vhca_cmd cmd;

    bounds_cmd_init(v, &cmd, c);
    cmd.out_len = cpu_to_le32(out_len);
    cmd.out_addr = cpu_to_le64(out_addr);
    return vhca_exec(v, &cmd, NULL);
}

static uint8_t bounds_exec_in(Vhca *v, const BoundsCmd *c, uint32_t in_len,
                              uint64_t in_addr)
{
    struct vhca_cmd cmd;

    bounds_cmd_init(v, &cmd, c);
    cmd.in_len = cpu_to_le32(in_len);
    cmd.in_addr = cpu_to_le64(in_addr);
    return vhca_exec(v, &cmd, NULL);
}

/* Output buffers of every command with output. */
static void bounds_check_output(Vhca *v, const BoundsCmd *c, uint64_t ram_end)
{
    uint32_t sz = c->out_size;
    uint64_t top = 0ull - sz;           /* ends exactly at 2^64 */

    g_assert_cmpuint(bounds_exec_out(v, c, 0, v->buf), ==, VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_out(v, c, sz - 1, v->buf), ==,
                     VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_out(v, c, VHCA_CMD_MAX_OUT_LEN + 1, v->buf),
                     ==, VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_out(v, c, 0xffffffff, v->buf), ==,
                     VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_out(v, c, sz, v->buf), ==, VHCA_CMD_OK);
    g_assert_cmpuint(bounds_exec_out(v, c, VHCA_CMD_MAX_OUT_LEN, v->buf), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(bounds_exec_out(v, c, sz, 0), ==, VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_out(v, c, sz, BAD_DMA_ADDR), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_out(v, c, sz, top), ==, VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_out(v, c, sz, ram_end - sz / 2), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_out(v, c, sz, ram_end - sz), ==,
                     VHCA_CMD_OK);
}

/* Input buffers of every command with input. */
static void bounds_check_input(Vhca *v, const BoundsCmd *c, uint64_t ram_end)
{
    uint32_t sz = c->in_size;

    g_assert_cmpuint(bounds_exec_in(v, c, 0, v->buf), ==, VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_in(v, c, sz - 1, v->buf), ==,
                     VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_in(v, c, VHCA_CMD_MAX_IN_LEN + 1, v->buf),
                     ==, VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(bounds_exec_in(v, c, sz, v->buf), ==, VHCA_CMD_OK);
    g_assert_cmpuint(bounds_exec_in(v, c, VHCA_CMD_MAX_IN_LEN, v->buf), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(bounds_exec_in(v, c, sz, 0), ==, VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_in(v, c, sz, BAD_DMA_ADDR), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_in(v, c, sz, 0ull - sz), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_in(v, c, sz, ram_end - sz / 2), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(bounds_exec_in(v, c, sz, ram_end - sz), ==,
                     VHCA_CMD_OK);
}

static void test_bounds_lengths(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ram_end = vhca_ram_end(v);
    size_t i;

    vhca_bringup(v);
    for (i = 0; i < ARRAY_SIZE(bounds_cmds); i++) {
        const BoundsCmd *c = &bounds_cmds[i];

        if (c->out_size) {
            bounds_check_output(v, c, ram_end);
        } else {
            /* No output: out_addr is ignored, out_len still bounded. */
            g_assert_cmpuint(bounds_exec_out(v, c, VHCA_CMD_MAX_OUT_LEN,
                                             BAD_DMA_ADDR), ==, VHCA_CMD_OK);
            g_assert_cmpuint(bounds_exec_out(v, c, VHCA_CMD_MAX_OUT_LEN + 1,
                                             v->buf), ==, VHCA_CMD_BAD_SIZE);
        }
        if (c->in_size) {
            bounds_check_input(v, c, ram_end);
        } else {
            g_assert_cmpuint(bounds_exec_in(v, c, VHCA_CMD_MAX_IN_LEN,
                                            BAD_DMA_ADDR), ==, VHCA_CMD_OK);
            g_assert_cmpuint(bounds_exec_in(v, c, VHCA_CMD_MAX_IN_LEN + 1,
                                            v->buf), ==, VHCA_CMD_BAD_SIZE);
        }
    }
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* The documented order: opcode, then lengths, then addresses, then input. */
static void test_bounds_order(void)
{
    Vhca *v = vhca_start(NULL);
    struct vhca_cmd cmd;

    vhca_bringup(v);
    cmd_init(v, &cmd, 0x7777);
    cmd.in_len = cpu_to_le32(0xffffffff);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_OPCODE);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
    cmd.in.port.port = 9;
    cmd.in_len = cpu_to_le32(VHCA_CMD_MAX_IN_LEN + 1);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_GID);
    cmd.in.table.port = 0;
    cmd.out_len = cpu_to_le32(sizeof(struct vhca_gid));
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);
    cmd_init(v, &cmd, VHCA_CMD_DESTROY_EQ);
    cmd.out_len = cpu_to_le32(VHCA_CMD_MAX_OUT_LEN + 1);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(v, &cmd, VHCA_CMD_CREATE_EQ);
    cmd.in_len = cpu_to_le32(VHCA_CMD_MAX_IN_LEN + 1);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);

    /* A failed command writes no output. */
    qtest_memset(v->qts, v->buf, 0xaa, 4096);
    cmd_init(v, &cmd, VHCA_CMD_QUERY_PORT);
    cmd.in.port.port = 3;
    cmd_out(v, &cmd, 4096);
    g_assert_cmpuint(vhca_exec(v, &cmd, NULL), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmphex(qtest_readq(v->qts, v->buf), ==, 0xaaaaaaaaaaaaaaaaull);
    vhca_assert_alive(v);
    vhca_stop(v);
}

/* QUERY_PORT, QUERY_GID or QUERY_PKEY (index 0) of a port. */
static uint8_t bounds_query(Vhca *v, uint16_t opcode, uint8_t port)
{
    if (opcode == VHCA_CMD_QUERY_PORT) {
        return vhca_query_port(v, port, NULL);
    }
    return vhca_query_table(v, opcode, port, 0, NULL);
}

static void bounds_check_ports(Vhca *v, uint8_t num_ports)
{
    static const uint16_t ops[] = {
        VHCA_CMD_QUERY_PORT, VHCA_CMD_QUERY_GID, VHCA_CMD_QUERY_PKEY,
    };
    const uint8_t bad_ports[] = { 0, num_ports + 1, 3, 0x80, 0xff };
    size_t i, j;

    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        for (j = 0; j < ARRAY_SIZE(bad_ports); j++) {
            g_assert_cmpuint(bounds_query(v, ops[i], bad_ports[j]), ==,
                             VHCA_CMD_BAD_PARAM);
        }
        g_assert_cmpuint(bounds_query(v, ops[i], num_ports), ==, VHCA_CMD_OK);
    }
}

static void test_bounds_ports_tables(void)
{
    Vhca *v = vhca_start(",fabric=bounds -device vhca,id=vhca1,addr=05.0,"
                         "ports=1,fabric=bounds");
    Vhca *w = vhca_sibling(v, QPCI_DEVFN(5, 0));
    static const uint16_t ops[] = { VHCA_CMD_QUERY_GID, VHCA_CMD_QUERY_PKEY };
    static const uint16_t bad_index[] = { 16, 17, 0x100, 0x8000, 0xffff };
    size_t i, j;

    vhca_bringup(v);
    vhca_bringup(w);
    bounds_check_ports(v, 2);
    bounds_check_ports(w, 1);
    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        g_assert_cmpuint(vhca_query_table(v, ops[i], 2, 15, NULL), ==,
                         VHCA_CMD_OK);
        for (j = 0; j < ARRAY_SIZE(bad_index); j++) {
            g_assert_cmpuint(vhca_query_table(v, ops[i], 1, bad_index[j],
                                              NULL), ==, VHCA_CMD_BAD_PARAM);
            g_assert_cmpuint(vhca_query_table(w, ops[i], 1, bad_index[j],
                                              NULL), ==, VHCA_CMD_BAD_PARAM);
        }
    }
    vhca_assert_alive(v);
    vhca_assert_alive(w);
    vhca_sibling_free(w);
    vhca_stop(v);
}

static void test_bounds_handles(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ring = guest_alloc(&v->alloc, 4096);
    static const uint32_t never[] = {
        1, 2, VHCA_MAX_EQS - 1, VHCA_MAX_EQS, 127, 128, 0x80000000u,
        0xffffffffu,
    };
    static const uint32_t never_pd[] = { 0, 1, 1023, 1024, 0xffffffffu };
    uint32_t eqn, result[2];
    size_t i;

    vhca_bringup(v);
    for (i = 0; i < ARRAY_SIZE(never); i++) {
        g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, never[i], NULL),
                         ==, VHCA_CMD_BAD_HANDLE);
    }
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, 0, NULL), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, &eqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, eqn, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, eqn, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* A destroyed EQ's doorbell is ignored. */
    db_write(v, VHCA_DB_EQ, vhca_db_eq_value(eqn, 0, 1));
    /* EQ 0 stays alive after all of it. */
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, 0, NULL), ==,
                     VHCA_CMD_BAD_PARAM);

    for (i = 0; i < ARRAY_SIZE(never_pd); i++) {
        g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, never_pd[i],
                                     NULL), ==, VHCA_CMD_BAD_HANDLE);
    }
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, result[0], NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, result[0], NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bounds_create_eq(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ram_end = vhca_ram_end(v);
    uint64_t ring = guest_alloc(&v->alloc, 4096);
    static const uint16_t bad_vector[] = { 0, 3, 4, 33, 0x8000, 0xffff };
    static const uint8_t bad_log[] = { 0, 1, VHCA_MAX_LOG_EQ + 1, 32, 0xff };
    static const uint64_t bad_align[] = { 8, 0x800, 0xfff, 0x1001 };
    uint32_t eqn;
    size_t i;

    vhca_bringup(v);
    for (i = 0; i < ARRAY_SIZE(bad_vector); i++) {
        g_assert_cmpuint(vhca_create_eq(v, ring, 2, bad_vector[i], NULL), ==,
                         VHCA_CMD_BAD_PARAM);
    }
    for (i = 0; i < ARRAY_SIZE(bad_log); i++) {
        g_assert_cmpuint(vhca_create_eq(v, ring, bad_log[i], 1, NULL), ==,
                         VHCA_CMD_BAD_PARAM);
    }
    for (i = 0; i < ARRAY_SIZE(bad_align); i++) {
        g_assert_cmpuint(vhca_create_eq(v, ring + bad_align[i], 2, 1, NULL),
                         ==, VHCA_CMD_BAD_PARAM);
    }
    g_assert_cmpuint(vhca_create_eq(v, 0, 2, 1, NULL), ==, VHCA_CMD_BAD_PARAM);
    /* Aligned, but not (all) guest memory. */
    g_assert_cmpuint(vhca_create_eq(v, BAD_DMA_ADDR, 2, 1, NULL), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(vhca_create_eq(v, ram_end - 4096, 8, 1, NULL), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(vhca_create_eq(v, 0xfffffffffffff000ull, 2, 1, NULL), ==,
                     VHCA_CMD_BAD_ADDR);
    g_assert_cmpuint(vhca_create_eq(v, ram_end, 2, 1, NULL), ==,
                     VHCA_CMD_BAD_ADDR);
    /* None of the failures used an EQ number; the limits themselves work. */
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 2, &eqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(eqn, ==, 1);
    g_assert_cmpuint(vhca_create_eq(v, ram_end - 8192, 8, 1, &eqn), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(eqn, ==, 2);
    g_assert_cmpuint(vhca_create_eq(v, 0x100000, VHCA_MAX_LOG_EQ, 1, &eqn),
                     ==, VHCA_CMD_OK);
    g_assert_cmpuint(eqn, ==, 3);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bounds_eq_table_full(void)
{
    Vhca *v = vhca_start(NULL);
    uint64_t ring = guest_alloc(&v->alloc, 4096);
    uint32_t eqn, i;

    vhca_bringup(v);
    /* Every EQ may share one ring: the device does not write them here. */
    for (i = 1; i < VHCA_MAX_EQS; i++) {
        g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1 + i % 2, &eqn), ==,
                         VHCA_CMD_OK);
        g_assert_cmpuint(eqn, ==, i);
    }
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, NULL), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, NULL), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, 17, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, &eqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(eqn, ==, 17);
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, NULL), ==,
                     VHCA_CMD_NO_RESOURCES);
    for (i = 1; i < VHCA_MAX_EQS; i++) {
        g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DESTROY_EQ, i, NULL), ==,
                         VHCA_CMD_OK);
    }
    g_assert_cmpuint(vhca_create_eq(v, ring, 2, 1, &eqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(eqn, ==, 1);
    vhca_assert_alive(v);
    vhca_stop(v);
}

static void test_bounds_pd_exhaustion(void)
{
    Vhca *v = vhca_start(NULL);
    g_autofree uint8_t *seen = g_new0(uint8_t, 1024);
    uint32_t result[2], i;

    vhca_bringup(v);
    for (i = 0; i < 1024; i++) {
        g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, result), ==,
                         VHCA_CMD_OK);
        g_assert_cmpuint(result[0], <, 1024);
        g_assert_cmpuint(seen[result[0]], ==, 0);
        seen[result[0]] = 1;
    }
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, NULL), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, NULL), ==,
                     VHCA_CMD_NO_RESOURCES);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_DEALLOC_PD, 500, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], ==, 500);
    g_assert_cmpuint(vhca_simple(v, VHCA_CMD_ALLOC_PD, 0, NULL), ==,
                     VHCA_CMD_NO_RESOURCES);
    vhca_assert_alive(v);
    vhca_stop(v);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/bounds/lengths", test_bounds_lengths);
    qtest_add_func("/vhca/bounds/order", test_bounds_order);
    qtest_add_func("/vhca/bounds/ports-tables", test_bounds_ports_tables);
    qtest_add_func("/vhca/bounds/handles", test_bounds_handles);
    qtest_add_func("/vhca/bounds/create-eq", test_bounds_create_eq);
    qtest_add_func("/vhca/bounds/eq-table-full", test_bounds_eq_table_full);
    qtest_add_func("/vhca/bounds/pd-exhaustion", test_bounds_pd_exhaustion);
    return g_test_run();
}
