/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * compat-44/infiniband/driver.h - for the out-of-tree build only
 * (scripts/build-provider.sh): the part of libibverbs' private provider
 * interface (IBVERBS_PRIVATE_34, rdma-core 44.0's infiniband/driver.h,
 * kern-abi.h and cmd_ioctl.h) that the vhca provider uses, under the
 * names rdma-core's own headers give it, so that the same provider/
 * source builds in rdma-core 65's tree (scripts/rdma-core-patches.sh),
 * which uses its real driver.h instead.  It goes when the guest's
 * userspace is rdma-core 65 (issue 27).
 *
 * Why a copy: Debian's libibverbs-dev does not install driver.h, and the
 * rdma-core 44.0 source tarball cannot be fetched here (provider/README.md).
 * The layouts below are those of rdma-core 44.0; struct verbs_context_ops
 * was checked against the installed libibverbs.so.1.14.44.0, whose
 * verbs_set_ops() reads exactly 76 op pointers (poll_cq at index 53 goes
 * to ibv_context.ops.poll_cq, post_send at 55 to ops.post_send, post_recv
 * at 54 to ops.post_recv): scripts/build-provider.sh repeats that check on
 * the library it links against and refuses to build on a mismatch.
 * Structs the provider allocates and the library fills (verbs_device,
 * verbs_mr) are given spare room at their ends.
 */
#ifndef VHCA_COMPAT_44_DRIVER_H
#define VHCA_COMPAT_44_DRIVER_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>

#define IBVERBS_PABI_VERSION 34

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* ccan/list.h */
struct list_node {
	struct list_node *next, *prev;
};

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

#define VERBS_PCI_MATCH(_vendor, _device, _data)                               \
	{                                                                      \
		.driver_data = (void *)(_data), .vendor = (_vendor),           \
		.device = (_device), .kind = VERBS_MATCH_PCI,                  \
	}

struct verbs_sysfs_dev;	/* only passed through */

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device; /* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
	uint64_t spare[4];	/* not in 44.0: room, see the top comment */
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
	uint64_t spare[2];	/* room, see the top comment */
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

enum verbs_qp_mask {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

/*
 * cmd_ioctl.h: a block of ioctl attributes.  A provider passes one as the
 * `link` of an ibv_cmd_* to add its driver attributes (the UVERBS_ID_NS
 * namespace); libibverbs copies link->hdr.attrs up to next_attr into the
 * command.  The attributes follow the struct in memory (hdr.attrs[]).
 */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx;		/* 0xff: none */
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error:1;
	uint8_t fallback_require_ex:1;
	uint8_t fallback_ioctl_only:1;
	struct ib_uverbs_ioctl_hdr hdr;
};
enum { _UHW_NO_INDEX = 0xff };	/* cmd_ioctl.h */

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/* Sorted, as in 44.0: 76 members. */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	void *alloc_null_mr;
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context, struct ibv_async_event *event);
	void *attach_counters_point_flow;
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	void *create_counters;
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	void *create_flow;
	void *create_flow_action_esp;
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	void *create_rwq_ind_table;
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	void *create_wq;
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	void *destroy_counters;
	int (*destroy_cq)(struct ibv_cq *cq);
	void *destroy_flow;
	void *destroy_flow_action;
	int (*destroy_qp)(struct ibv_qp *qp);
	void *destroy_rwq_ind_table;
	int (*destroy_srq)(struct ibv_srq *srq);
	void *destroy_wq;
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	void *modify_cq;
	void *modify_flow_action_esp;
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	void *modify_qp_rate_limit;
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	void *modify_wq;
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	void *query_ece;
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	void *query_qp_data_in_order;
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	void *read_counters;
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova,
					int fd, int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	void *set_ece;
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};
_Static_assert(sizeof(struct verbs_context_ops) == 76 * sizeof(void *),
	       "verbs_context_ops of IBVERBS_PRIVATE_34 has 76 members");
_Static_assert(offsetof(struct verbs_context_ops, poll_cq) == 53 * sizeof(void *),
	       "poll_cq is op 53");
_Static_assert(offsetof(struct verbs_context_ops, post_recv) == 54 * sizeof(void *),
	       "post_recv is op 54");
_Static_assert(offsetof(struct verbs_context_ops, post_send) == 55 * sizeof(void *),
	       "post_send is op 55");

/* kern-abi.h: each write command is its header and the kernel's struct. */
#define VHCA_DECLARE_CMD(_name, _kabi)                                         \
	struct _name {                                                         \
		struct ib_uverbs_cmd_hdr hdr;                                  \
		struct _kabi core_payload;                                     \
	}
VHCA_DECLARE_CMD(ibv_get_context, ib_uverbs_get_context);
VHCA_DECLARE_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
VHCA_DECLARE_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
VHCA_DECLARE_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr);
VHCA_DECLARE_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);
VHCA_DECLARE_CMD(ibv_create_cq, ib_uverbs_create_cq);
VHCA_DECLARE_CMD(ibv_resize_cq, ib_uverbs_resize_cq);
VHCA_DECLARE_CMD(ibv_create_qp, ib_uverbs_create_qp);
VHCA_DECLARE_CMD(ibv_create_srq, ib_uverbs_create_srq);
VHCA_DECLARE_CMD(ibv_query_port, ib_uverbs_query_port);
VHCA_DECLARE_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
VHCA_DECLARE_CMD(ibv_query_qp, ib_uverbs_query_qp);
VHCA_DECLARE_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
VHCA_DECLARE_CMD(ibv_query_srq, ib_uverbs_query_srq);
VHCA_DECLARE_CMD(ibv_open_xrcd, ib_uverbs_open_xrcd);
VHCA_DECLARE_CMD(ibv_create_xsrq, ib_uverbs_create_xsrq);
VHCA_DECLARE_CMD(ibv_open_qp, ib_uverbs_open_qp);
/* extended commands: the two headers, then the kernel's struct */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};
#define VHCA_DECLARE_CMD_EX(_name, _kabi)                                      \
	struct _name {                                                         \
		struct ex_hdr hdr;                                             \
		struct _kabi core_payload;                                     \
	}
VHCA_DECLARE_CMD_EX(ibv_create_cq_ex, ib_uverbs_ex_create_cq);

/* The library's half (all exported with version IBVERBS_PRIVATE_34). */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb,     \
				     driver_id)                                \
	((__typeof__(drv_ctx_ptr))_verbs_init_and_alloc_context(               \
		ibdev, cmd_fd, sizeof(*drv_ctx_ptr),                           \
		&((__typeof__(drv_ctx_ptr))NULL)->ctx_memb, (driver_id)))
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/*
 * Two calls whose rdma-core 65 form has one more argument than 44's: the
 * provider is written for 65 (an fd array for get_context, provider
 * buffers for create_cq_ex, both NULL here), and these wrappers call the
 * 44 symbols of the same names.
 */
struct ibv_fd_arr;
struct verbs_create_cq_prov_attr;
int vhca_ibv_cmd_get_context_34(struct verbs_context *context,
				struct ibv_get_context *cmd, size_t cmd_size,
				struct ib_uverbs_get_context_resp *resp,
				size_t resp_size) __asm__("ibv_cmd_get_context");
static inline int ibv_cmd_get_context(struct verbs_context *context,
				      struct ibv_get_context *cmd, size_t cmd_size,
				      struct ibv_fd_arr *fd_arr,
				      struct ib_uverbs_get_context_resp *resp,
				      size_t resp_size)
{
	if (fd_arr)
		return EOPNOTSUPP;
	return vhca_ibv_cmd_get_context_34(context, cmd, cmd_size, resp,
					   resp_size);
}
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr,
			  struct ibv_command_buffer *driver);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz,
		     struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int vhca_ibv_cmd_create_cq_ex_34(struct ibv_context *context,
				 const struct ibv_cq_init_attr_ex *cq_attr,
				 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
				 size_t cmd_size,
				 struct ib_uverbs_ex_create_cq_resp *resp,
				 size_t resp_size, uint32_t cmd_flags)
	__asm__("ibv_cmd_create_cq_ex");
static inline int ibv_cmd_create_cq_ex(struct ibv_context *context,
				       const struct ibv_cq_init_attr_ex *cq_attr,
				       struct verbs_create_cq_prov_attr *prov_attr,
				       struct verbs_cq *cq,
				       struct ibv_create_cq_ex *cmd, size_t cmd_size,
				       struct ib_uverbs_ex_create_cq_resp *resp,
				       size_t resp_size, uint32_t cmd_flags)
{
	if (prov_attr)
		return EOPNOTSUPP;
	return vhca_ibv_cmd_create_cq_ex_34(context, cq_attr, cq, cmd, cmd_size,
					    resp, resp_size, cmd_flags);
}
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);

/* ibv_fork_init's MADV_DONTFORK bookkeeping (driver.h); no-ops unless
 * the application called ibv_fork_init on a kernel without copy-on-fork
 * for pinned pages. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* driver.h's inline: a parent domain carries its protection domain's
 * context and kernel handle. */
static inline void ibv_initialize_parent_domain(struct ibv_pd *parent_domain,
						struct ibv_pd *protection_domain)
{
	parent_domain->context = protection_domain->context;
	parent_domain->handle = protection_domain->handle;
}

#define PROVIDER_DRIVER(provider_name, drv_struct)                             \
	extern const struct verbs_device_ops verbs_provider_##provider_name    \
		__attribute__((alias(#drv_struct)));                           \
	static __attribute__((constructor)) void                               \
		provider_name##_register_driver(void)                          \
	{                                                                      \
		verbs_register_driver_34(&drv_struct);                         \
	}

#endif /* VHCA_COMPAT_44_DRIVER_H */
