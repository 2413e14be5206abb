// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The extern "C" data path functions of vhca_core_verbs.h.  The opaque C
// handles are the core objects: vhca_core_cq is a CompletionQueue,
// vhca_core_qp a QueuePair, vhca_core_srq a SharedReceiveQueue,
// vhca_core_mr a MemoryRegion, vhca_core_mw a MemoryWindow.
#include "completion_queue.h"
#include "device.h"
#include "device_memory.h"
#include "memory_region.h"
#include "memory_window.h"
#include "queue_pair.h"
#include "shared_receive_queue.h"
#include "user_buffer.h"
#include "vhca_core_user.h"
#include "vhca_core_verbs.h"
#include "vhca_errno.h"

namespace {

vhca::Device* AsDevice(vhca_core_device* dev) {
  return reinterpret_cast<vhca::Device*>(dev);
}
vhca::CompletionQueue* AsCq(vhca_core_cq* cq) {
  return reinterpret_cast<vhca::CompletionQueue*>(cq);
}
vhca::QueuePair* AsQp(vhca_core_qp* qp) {
  return reinterpret_cast<vhca::QueuePair*>(qp);
}
const vhca::QueuePair* AsQp(const vhca_core_qp* qp) {
  return reinterpret_cast<const vhca::QueuePair*>(qp);
}
vhca::SharedReceiveQueue* AsSrq(vhca_core_srq* srq) {
  return reinterpret_cast<vhca::SharedReceiveQueue*>(srq);
}
vhca::MemoryRegion* AsMr(vhca_core_mr* mr) {
  return reinterpret_cast<vhca::MemoryRegion*>(mr);
}
const vhca::MemoryRegion* AsMr(const vhca_core_mr* mr) {
  return reinterpret_cast<const vhca::MemoryRegion*>(mr);
}
vhca::DeviceMemory* AsDm(vhca_core_dm* dm) {
  return reinterpret_cast<vhca::DeviceMemory*>(dm);
}
vhca::MemoryWindow* AsMw(vhca_core_mw* mw) {
  return reinterpret_cast<vhca::MemoryWindow*>(mw);
}
const vhca::MemoryWindow* AsMw(const vhca_core_mw* mw) {
  return reinterpret_cast<const vhca::MemoryWindow*>(mw);
}
vhca::UserBuffer* AsUbuf(vhca_core_ubuf* buf) {
  return reinterpret_cast<vhca::UserBuffer*>(buf);
}
// Takes a buffer over from C (nullptr stays nullptr).
vhca::OwnedPtr<vhca::UserBuffer> TakeUbuf(vhca_core_ubuf* buf) {
  return vhca::OwnedPtr<vhca::UserBuffer>(AsUbuf(buf));
}

// Hands a created object to C: *out gets it, 0; or the error.
template <typename Handle, typename T>
int Publish(vhca::Result<vhca::OwnedPtr<T>>& created, Handle** out) {
  if (!created.ok()) return created.error();
  *out = reinterpret_cast<Handle*>(created.value().Release());
  return 0;
}

// DESTROY command result -> freed, retired or kept (Device::FinishDestroy).
template <typename T>
int Destroy(vhca::Device& device, T* object) {
  return device.FinishDestroy(object, object->DestroyOnDevice().error());
}

}  // namespace

extern "C" {

void vhca_core_set_event_ops(vhca_core_device* dev,
                             const vhca_core_event_ops* ops) {
  AsDevice(dev)->objects().set_ops(*ops);
}

// ---- completion queues ----

int vhca_core_create_cq(vhca_core_device* dev, unsigned int entries,
                        unsigned int comp_vector, void* cq_context,
                        vhca_core_cq** out, unsigned int* actual_entries) {
  auto cq = vhca::CompletionQueue::Create(*AsDevice(dev), entries, comp_vector,
                                          cq_context);
  if (cq.ok()) *actual_entries = cq.value()->capacity();
  return Publish(cq, out);
}

int vhca_core_destroy_cq(vhca_core_cq* cq) {
  vhca::CompletionQueue* object = AsCq(cq);
  return Destroy(object->device(), object);
}

int vhca_core_resize_cq(vhca_core_cq* cq, unsigned int entries,
                        unsigned int* actual_entries) {
  vhca::CompletionQueue* object = AsCq(cq);
  const int error = object->Resize(entries).error();
  if (error == 0) *actual_entries = object->capacity();
  return error;
}

int vhca_core_poll_cq(vhca_core_cq* cq, int num, vhca_core_wc_convert convert,
                      void* ctx) {
  return AsCq(cq)->Poll(num, convert, ctx);
}

void vhca_core_cq_snapshot(vhca_core_cq* cq, vhca_core_cq_res* res) {
  AsCq(cq)->Snapshot(res);
}

int vhca_core_arm_cq(vhca_core_cq* cq, unsigned int flags) {
  return AsCq(cq)->Arm(flags);
}

// ---- queue pairs ----

int vhca_core_create_qp(vhca_core_device* dev, vhca_core_qp_init* init,
                        vhca_core_qp** out) {
  auto qp = vhca::QueuePair::Create(*AsDevice(dev), init);
  return Publish(qp, out);
}

unsigned int vhca_core_qp_num(const vhca_core_qp* qp) { return AsQp(qp)->qp_num(); }

void vhca_core_qp_snapshot(vhca_core_qp* qp, vhca_core_qp_res* res) {
  AsQp(qp)->Snapshot(res);
}

int vhca_core_modify_qp(vhca_core_qp* qp, const vhca_core_qp_attr* attr,
                        unsigned int attr_mask) {
  return AsQp(qp)->Modify(*attr, attr_mask).error();
}

int vhca_core_query_qp(vhca_core_qp* qp, vhca_core_qp_attr* attr) {
  return AsQp(qp)->Query(attr).error();
}

int vhca_core_destroy_qp(vhca_core_qp* qp) {
  vhca::QueuePair* object = AsQp(qp);
  return Destroy(object->device(), object);
}

int vhca_core_post_send_chain(vhca_core_qp* qp, const void** item,
                              vhca_core_send_wr_convert convert, void* ctx) {
  return AsQp(qp)->PostSendChain(item, convert, ctx).error();
}

int vhca_core_post_recv_chain(vhca_core_qp* qp, const void** item,
                              vhca_core_recv_wr_convert convert) {
  return AsQp(qp)->PostRecvChain(item, convert).error();
}

int vhca_core_attach_mcast(vhca_core_qp* qp, unsigned short mlid,
                           const unsigned char mgid[16]) {
  return AsQp(qp)->AttachMcast(mlid, mgid).error();
}

int vhca_core_detach_mcast(vhca_core_qp* qp, unsigned short mlid,
                           const unsigned char mgid[16]) {
  return AsQp(qp)->DetachMcast(mlid, mgid).error();
}

// ---- shared receive queues ----

int vhca_core_create_srq(vhca_core_device* dev, unsigned int pdn,
                         unsigned int max_wr, unsigned int max_sge,
                         unsigned int limit, void* srq_context,
                         vhca_core_srq** out,
                         unsigned int* actual_wr, unsigned int* actual_sge) {
  auto srq = vhca::SharedReceiveQueue::Create(*AsDevice(dev), pdn, max_wr,
                                              max_sge, limit, srq_context);
  if (srq.ok()) {
    *actual_wr = srq.value()->max_wr();
    *actual_sge = srq.value()->max_sge();
  }
  return Publish(srq, out);
}

int vhca_core_modify_srq(vhca_core_srq* srq, unsigned int limit) {
  return AsSrq(srq)->SetLimit(limit).error();
}

int vhca_core_resize_srq(vhca_core_srq* srq, unsigned int max_wr,
                         unsigned int* actual_wr) {
  const vhca::Status status = AsSrq(srq)->Resize(max_wr);
  if (status.ok()) *actual_wr = AsSrq(srq)->max_wr();
  return status.error();
}

int vhca_core_query_srq(vhca_core_srq* srq, unsigned int* limit) {
  auto result = AsSrq(srq)->QueryLimit();
  if (!result.ok()) return result.error();
  *limit = result.value();
  return 0;
}

int vhca_core_destroy_srq(vhca_core_srq* srq) {
  vhca::SharedReceiveQueue* object = AsSrq(srq);
  return Destroy(object->device(), object);
}

int vhca_core_post_srq_recv_chain(vhca_core_srq* srq, const void** item,
                                  vhca_core_recv_wr_convert convert) {
  return AsSrq(srq)->PostRecvChain(item, convert).error();
}

// ---- memory regions ----

int vhca_core_create_dma_mr(vhca_core_device* dev, unsigned int pdn,
                            unsigned int access, unsigned long long dma_addr,
                            unsigned long long length, vhca_core_mr** out) {
  auto mr = vhca::MemoryRegion::CreateDma(*AsDevice(dev), pdn, access,
                                          dma_addr, length);
  return Publish(mr, out);
}

int vhca_core_create_paged_mr(vhca_core_device* dev, unsigned int npages,
                              vhca_core_mr** out) {
  auto mr = vhca::MemoryRegion::CreatePaged(*AsDevice(dev), npages);
  return Publish(mr, out);
}

void vhca_core_mr_set_page(vhca_core_mr* mr, unsigned int index,
                           unsigned long long page_addr) {
  AsMr(mr)->SetPage(index, page_addr);
}

int vhca_core_mr_register(vhca_core_mr* mr, unsigned int pdn,
                          unsigned long long iova, unsigned long long length,
                          unsigned int page_shift, unsigned int access) {
  return AsMr(mr)->Register(pdn, iova, length, page_shift, access).error();
}

int vhca_core_mr_reregister(vhca_core_mr* mr, vhca_core_mr* staged,
                            unsigned int pdn, unsigned long long iova,
                            unsigned long long length, unsigned int page_shift,
                            unsigned int access) {
  return AsMr(mr)->Reregister(*AsMr(staged), pdn, iova, length, page_shift,
                              access).error();
}

int vhca_core_alloc_frwr_mr(vhca_core_device* dev, unsigned int pdn,
                            unsigned int max_pages, vhca_core_mr** out) {
  auto mr = vhca::MemoryRegion::AllocFastReg(*AsDevice(dev), pdn, max_pages);
  return Publish(mr, out);
}

void vhca_core_mr_map_begin(vhca_core_mr* mr) { AsMr(mr)->MapBegin(); }

int vhca_core_mr_map_end(vhca_core_mr* mr, unsigned int npages,
                         unsigned long long iova, unsigned long long length,
                         unsigned int page_shift) {
  return AsMr(mr)->MapEnd(npages, iova, length, page_shift).error();
}

unsigned int vhca_core_mr_key(const vhca_core_mr* mr) { return AsMr(mr)->key(); }

// ---- on-demand paging ----

int vhca_core_create_odp_mr(vhca_core_device* dev, unsigned int pdn,
                            unsigned long long iova, unsigned long long length,
                            unsigned int first_byte_offset, unsigned int npages,
                            unsigned int page_shift, unsigned int access,
                            vhca_core_mr** out) {
  auto mr = vhca::MemoryRegion::CreateOdp(*AsDevice(dev), pdn, iova, length,
                                          first_byte_offset, npages,
                                          page_shift, access);
  return Publish(mr, out);
}

int vhca_core_create_implicit_odp_mr(vhca_core_device* dev, unsigned int pdn,
                                     unsigned int page_shift,
                                     unsigned int access, vhca_core_mr** out) {
  auto mr = vhca::MemoryRegion::CreateOdpImplicit(*AsDevice(dev), pdn,
                                                  page_shift, access);
  return Publish(mr, out);
}

int vhca_core_odp_map(vhca_core_mr* mr, unsigned long long first_page,
                      unsigned int npages, const unsigned long long* dma) {
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "u64");
  return AsMr(mr)->OdpMap(first_page, npages,
                          reinterpret_cast<const uint64_t*>(dma)).error();
}

int vhca_core_odp_invalidate(vhca_core_mr* mr, unsigned long long first_page,
                             unsigned int npages) {
  return AsMr(mr)->OdpInvalidate(first_page, npages).error();
}

int vhca_core_odp_resume(vhca_core_device* dev, unsigned int qp_handle,
                         int error) {
  return AsDevice(dev)->commands().OdpResume(
      qp_handle, error ? VHCA_ODP_RESUME_F_ERROR : 0).error();
}

void vhca_core_set_page_fault_handler(vhca_core_device* dev,
                                      vhca_core_page_fault_fn fn,
                                      void* context) {
  AsDevice(dev)->SetPageFaultHandler(fn, context);
}

int vhca_core_destroy_mr(vhca_core_mr* mr) {
  vhca::MemoryRegion* object = AsMr(mr);
  return Destroy(object->device(), object);
}

// ---- user verbs (vhca_core_user.h) ----

int vhca_core_alloc_db_page(vhca_core_device* dev, unsigned int* page) {
  auto result = AsDevice(dev)->doorbell_pages().Alloc();
  if (!result.ok()) return result.error();
  *page = result.value();
  return 0;
}

void vhca_core_free_db_page(vhca_core_device* dev, unsigned int page) {
  AsDevice(dev)->doorbell_pages().Free(page);
}

int vhca_core_ubuf_create(vhca_core_device* dev, unsigned int npages,
                          vhca_core_ubuf** out) {
  auto buf = vhca::UserBuffer::Create(AsDevice(dev)->kdev(), npages);
  return Publish(buf, out);
}

void vhca_core_ubuf_set_page(vhca_core_ubuf* buf, unsigned int index,
                             unsigned long long dma_addr) {
  AsUbuf(buf)->SetPage(index, dma_addr);
}

void vhca_core_ubuf_destroy(vhca_core_ubuf* buf) { TakeUbuf(buf).Reset(); }

int vhca_core_create_user_cq(vhca_core_device* dev, vhca_core_ubuf* buf,
                             unsigned int log_size, unsigned int dbrec_offset,
                             unsigned int comp_vector, unsigned int db_page,
                             void* cq_context, vhca_core_cq** out,
                             unsigned int* cqn) {
  auto cq = vhca::CompletionQueue::CreateUser(*AsDevice(dev), TakeUbuf(buf),
                                              log_size, dbrec_offset,
                                              comp_vector, db_page, cq_context);
  if (cq.ok()) *cqn = cq.value()->cqn();
  return Publish(cq, out);
}

int vhca_core_resize_user_cq(vhca_core_cq* cq, vhca_core_ubuf* buf,
                             unsigned int log_size, unsigned int dbrec_offset) {
  return AsCq(cq)->ResizeUser(TakeUbuf(buf), log_size, dbrec_offset).error();
}

int vhca_core_alloc_mw(vhca_core_device* dev, unsigned int pdn,
                       unsigned int type, vhca_core_mw** out) {
  auto mw = vhca::MemoryWindow::Alloc(*AsDevice(dev), pdn, type);
  return Publish(mw, out);
}

unsigned int vhca_core_mw_key(const vhca_core_mw* mw) { return AsMw(mw)->key(); }

int vhca_core_dealloc_mw(vhca_core_mw* mw) {
  vhca::MemoryWindow* object = AsMw(mw);
  return Destroy(object->device(), object);
}

int vhca_core_alloc_dm(vhca_core_device* dev, unsigned long long length,
                       unsigned int log_align, vhca_core_dm** out,
                       unsigned int* offset, unsigned long long* size) {
  auto dm = vhca::DeviceMemory::Alloc(*AsDevice(dev), length, log_align);
  if (dm.ok()) {
    *offset = dm.value()->offset();
    *size = dm.value()->size();
  }
  return Publish(dm, out);
}

int vhca_core_free_dm(vhca_core_dm* dm) {
  vhca::DeviceMemory* object = AsDm(dm);
  return Destroy(object->device(), object);
}

int vhca_core_reg_dm_mr(vhca_core_device* dev, unsigned int pdn,
                        unsigned int access, unsigned int dm_offset,
                        unsigned long long length, vhca_core_mr** out) {
  auto mr = vhca::MemoryRegion::CreateDm(*AsDevice(dev), pdn, access,
                                         dm_offset, length);
  return Publish(mr, out);
}

int vhca_core_create_user_qp(vhca_core_device* dev, vhca_core_qp_init* init,
                             vhca_core_user_qp_rings* rings, vhca_core_qp** out) {
  vhca::UserQpRings user;
  user.sq = TakeUbuf(rings->sq);
  user.rq = TakeUbuf(rings->rq);
  user.sq_log_size = rings->sq_log_size;
  user.sq_wqe_shift = rings->sq_wqe_shift;
  user.rq_log_size = rings->rq_log_size;
  user.rq_wqe_shift = rings->rq_wqe_shift;
  user.rq_dbrec_offset = rings->rq_dbrec_offset;
  user.sq_dbrec = rings->sq_dbrec != 0;
  user.sq_dbrec_offset = rings->sq_dbrec_offset;
  user.db_page = rings->db_page;
  auto qp = vhca::QueuePair::CreateUser(*AsDevice(dev), init, &user);
  return Publish(qp, out);
}

int vhca_core_qp_sq_dbrec(const vhca_core_qp* qp) {
  return AsQp(qp)->user_sq_dbrec();
}

unsigned int vhca_core_qp_max_inline(const vhca_core_qp* qp) {
  return AsQp(qp)->send_layout().max_inline;
}

namespace {

int CreateUserSrq(vhca_core_device* dev, vhca_core_user_srq_init* init,
                  const vhca_core_srq_xrc* xrc,
                  vhca::SharedReceiveQueue::TagMatching* tm,
                  vhca_core_srq** out) {
  auto srq = vhca::SharedReceiveQueue::CreateUser(
      *AsDevice(dev), *init, TakeUbuf(init->buf), xrc, tm);
  if (srq.ok()) {
    init->srqn = srq.value()->srqn();
    init->max_wr = srq.value()->max_wr();
    init->max_sge = srq.value()->max_sge();
  }
  return Publish(srq, out);
}

}  // namespace

int vhca_core_create_user_srq(vhca_core_device* dev,
                              vhca_core_user_srq_init* init,
                              const vhca_core_srq_xrc* xrc,
                              vhca_core_srq** out) {
  return CreateUserSrq(dev, init, xrc, nullptr, out);
}

int vhca_core_resize_user_srq(vhca_core_srq* srq, vhca_core_ubuf* buf,
                              unsigned int max_wr, unsigned int log_size,
                              unsigned int wqe_shift, unsigned int dbrec_offset,
                              unsigned int* actual_wr) {
  const vhca::Status status = AsSrq(srq)->ResizeUser(
      TakeUbuf(buf), max_wr, log_size, wqe_shift, dbrec_offset);
  if (status.ok()) *actual_wr = AsSrq(srq)->max_wr();
  return status.error();
}

int vhca_core_create_user_tm_srq(vhca_core_device* dev,
                                 vhca_core_user_srq_init* init,
                                 const vhca_core_srq_tm* tm,
                                 vhca_core_srq** out) {
  vhca::SharedReceiveQueue::TagMatching spec{
      tm->cq ? AsCq(tm->cq)->cqn() : 0u, tm->max_num_tags, TakeUbuf(tm->ops),
      tm->ops_log_size};
  if (!tm->cq) {
    TakeUbuf(init->buf).Reset();
    return -VHCA_EINVAL;
  }
  return CreateUserSrq(dev, init, nullptr, &spec, out);
}

void vhca_core_make_av(const vhca_core_ah_attr* ah, vhca_av* av) {
  *av = vhca::MakeAv(*ah);
}

}  // extern "C"
