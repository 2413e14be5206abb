// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// Work request -> WQE encoding (vhca_hw_verbs.h "Send WQEs", "Receive
// WQEs"), as pure functions of the queue's layout so that the unit tests
// check every byte.  Argument errors are -EINVAL (ib_post_send's bad_wr):
// unknown opcode, an opcode the QP type cannot carry, too many SGEs,
// inline data beyond max_inline, a WQE that would overflow its stride.
#ifndef VHCA_CORE_WQE_BUILDER_H
#define VHCA_CORE_WQE_BUILDER_H

#include "result.h"
#include "vhca_core_verbs.h"
#include "vhca_hw.h"

namespace vhca {

struct SendQueueLayout {
  uint8_t qp_type = 0;       // enum vhca_qp_type
  uint32_t stride = 0;       // bytes per WQE
  uint32_t max_sge = 0;
  uint32_t max_inline = 0;
  bool sig_all = false;      // every WQE signaled (IB_SIGNAL_ALL_WR)
};

struct RecvQueueLayout {
  uint32_t stride = 0;
  uint32_t max_sge = 0;
};

// A vhca_av from an ib address handle's attributes.
vhca_av MakeAv(const vhca_core_ah_attr& ah);
void AvToAhAttr(const vhca_av& av, vhca_core_ah_attr* ah);

// Writes the WQE for `wr` at `wqe` (layout.stride bytes, all rewritten).
Status BuildSendWqe(const SendQueueLayout& layout, const vhca_core_send_wr& wr,
                    uint8_t* wqe);
Status BuildRecvWqe(const RecvQueueLayout& layout, const vhca_core_recv_wr& wr,
                    uint8_t* wqe);

}  // namespace vhca

#endif  // VHCA_CORE_WQE_BUILDER_H
