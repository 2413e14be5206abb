// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// A doubly linked list threaded through the ListNode base of its elements
// (like the kernel's list_head): no allocation, O(1) insert and remove.
// Elements derive from ListNode, so a node converts back to its element
// with a static_cast (no offsetof tricks).
// Not thread safe: the owner holds its lock around every call.
#ifndef VHCA_CORE_INTRUSIVE_LIST_H
#define VHCA_CORE_INTRUSIVE_LIST_H

#include "type_traits.h"

namespace vhca {

struct ListNode {
  ListNode* prev = nullptr;
  ListNode* next = nullptr;
  bool linked() const { return next != nullptr; }
};

template <typename T>
class IntrusiveList {
 public:
  IntrusiveList() { head_.prev = head_.next = &head_; }
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;

  bool empty() const { return head_.next == &head_; }
  size_t size() const { return size_; }

  void PushBack(T* item) {
    ListNode* node = item;
    node->prev = head_.prev;
    node->next = &head_;
    head_.prev->next = node;
    head_.prev = node;
    size_++;
  }

  void Remove(T* item) {
    ListNode* node = item;
    node->prev->next = node->next;
    node->next->prev = node->prev;
    node->prev = node->next = nullptr;
    size_--;
  }

  // The first element for which match(const T&) is true, or nullptr.
  template <typename Match>
  T* Find(Match&& match) const {
    for (ListNode* node = head_.next; node != &head_; node = node->next)
      if (match(static_cast<const T&>(*FromNode(node)))) return FromNode(node);
    return nullptr;
  }

  // nullptr when empty.
  T* PopFront() {
    if (empty()) return nullptr;
    T* item = FromNode(head_.next);
    Remove(item);
    return item;
  }

 private:
  static T* FromNode(ListNode* node) { return static_cast<T*>(node); }
  static T* FromNode(const ListNode* node) {
    return static_cast<T*>(const_cast<ListNode*>(node));
  }

  ListNode head_;
  size_t size_ = 0;
};

}  // namespace vhca

#endif  // VHCA_CORE_INTRUSIVE_LIST_H
