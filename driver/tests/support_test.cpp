// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The core's own support headers: Result, OwnedPtr/OwnedArray over the
// kapi allocator, IntrusiveList, typed registers.
#include "core_test.h"
#include "heap.h"
#include "intrusive_list.h"
#include "owned_ptr.h"
#include "registers.h"
#include "result.h"
#include "vhca_errno.h"

namespace {

using SupportTest = CoreTest;

struct Counted : vhca::HeapObject {
  explicit Counted(int* live) : live_(live) { ++*live_; }
  ~Counted() { --*live_; }
  int* live_;
};

vhca::Result<vhca::OwnedPtr<Counted>> MakeCounted(int* live, bool fail) {
  if (fail) return vhca::Error{-VHCA_EINVAL};
  vhca::OwnedPtr<Counted> ptr(new Counted(live));
  if (!ptr) return vhca::Error{-VHCA_ENOMEM};
  return ptr;
}

vhca::Status Chain(int* live, bool fail) {
  VHCA_TRY(MakeCounted(live, fail));
  return vhca::Ok();
}

TEST_F(SupportTest, ResultCarriesValueOrErrno) {
  int live = 0;
  {
    auto ok = MakeCounted(&live, false);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(live, 1);
    vhca::OwnedPtr<Counted> taken = ok.Take();
    EXPECT_EQ(live, 1);
  }
  EXPECT_EQ(live, 0);
  auto error = MakeCounted(&live, true);
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.error(), -VHCA_EINVAL);
  EXPECT_EQ(Chain(&live, true).error(), -VHCA_EINVAL);
  EXPECT_EQ(Chain(&live, false).error(), 0);
  EXPECT_EQ(live, 0);
}

TEST_F(SupportTest, HeapObjectNewReturnsNullOnFailure) {
  int live = 0;
  kernel_.FailAllocation(1);
  EXPECT_EQ(MakeCounted(&live, false).error(), -VHCA_ENOMEM);
  EXPECT_EQ(live, 0);  // the constructor never ran (-fcheck-new/noexcept)
}

struct Element {
  Element() { ++constructed; }
  ~Element() { ++destroyed; }
  static inline int constructed = 0;
  static inline int destroyed = 0;
};

TEST_F(SupportTest, OwnedArrayConstructsAndDestroysEveryElement) {
  {
    vhca::OwnedArray<Element> array;
    ASSERT_TRUE(array.Allocate(5));
    EXPECT_EQ(array.size(), 5u);
    vhca::OwnedArray<Element> moved = static_cast<vhca::OwnedArray<Element>&&>(array);
    EXPECT_EQ(array.size(), 0u);
    EXPECT_EQ(moved.size(), 5u);
  }
  EXPECT_EQ(Element::constructed, 5);
  EXPECT_EQ(Element::destroyed, 5);
  kernel_.FailAllocation(1);
  vhca::OwnedArray<Element> failed;
  EXPECT_FALSE(failed.Allocate(3));
}

TEST_F(SupportTest, IntrusiveListIsFifo) {
  struct Item : vhca::ListNode {
    int value = 0;
  };
  Item items[3];
  vhca::IntrusiveList<Item> list;
  EXPECT_TRUE(list.empty());
  for (int i = 0; i < 3; i++) {
    items[i].value = i;
    list.PushBack(&items[i]);
  }
  list.Remove(&items[1]);
  EXPECT_FALSE(items[1].linked());
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(list.PopFront()->value, 0);
  EXPECT_EQ(list.PopFront()->value, 2);
  EXPECT_EQ(list.PopFront(), nullptr);
}

TEST_F(SupportTest, RegistersDecodeCapsVersionAndStatus) {
  device_.num_ports = 2;
  device_.num_vectors = 9;
  device_.max_log_cmdq = 7;
  device_.max_log_eq = 11;
  vhca::Registers regs(&kdev_);
  const vhca::DeviceCaps caps = regs.ReadCaps();
  EXPECT_EQ(caps.num_ports, 2);
  EXPECT_EQ(caps.num_vectors, 9);
  EXPECT_EQ(caps.max_log_cmdq, 7);
  EXPECT_EQ(caps.max_log_eq, 11);
  device_.version = (1u << 16) | 3u;
  EXPECT_EQ(regs.ReadVersion().major, 1);
  EXPECT_EQ(regs.ReadVersion().minor, 3);
  device_.fatal = true;
  device_.fatal_code = VHCA_FATAL_EQ0_OVERFLOW;
  const vhca::DeviceStatus status = regs.ReadStatus();
  EXPECT_TRUE(status.fatal);
  EXPECT_FALSE(status.enabled);
  EXPECT_EQ(status.fatal_code, VHCA_FATAL_EQ0_OVERFLOW);
  device_.fatal = false;
}

TEST_F(SupportTest, RegistersProgramQueues) {
  vhca::Registers regs(&kdev_);
  regs.SetCmdq(0x123456789000ull, 5);
  regs.SetEq0(0xabcdef000ull, 8);
  EXPECT_EQ(device_.cmdq_base, 0x123456789000ull);
  EXPECT_EQ(device_.cmdq_log, 5u);
  EXPECT_EQ(device_.eqs[0].base, 0xabcdef000ull);
  EXPECT_EQ(device_.eqs[0].log_size, 8u);
  device_.eqs[0] = FakeDevice::Eq{};
  device_.cmdq_base = 0;
}

}  // namespace
