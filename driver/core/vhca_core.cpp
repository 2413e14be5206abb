// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The whole core as ONE translation unit, for the kernel build only.
//
// Why: an inline or template function (Result<T>::~Result, a lambda,
// OwnedPtr<T>::Reset, ...) used by two C++ objects is emitted in both as
// a COMDAT section.  The module's composite link (ld -r) keeps one copy and
// discards the other, but the discarded object's __mcount_loc entry (from
// -mrecord-mcount) still points into the discarded section, and the link
// fails.  One translation unit emits each function once.  The host unit
// tests compile the files separately, which keeps each self-contained.
#include "command_queue.cpp"
#include "completion_queue.cpp"
#include "data_path_commands.cpp"
#include "device.cpp"
#include "device_commands.cpp"
#include "device_memory.cpp"
#include "doorbell_pages.cpp"
#include "entry.cpp"
#include "entry_verbs.cpp"
#include "event_queue.cpp"
#include "memory_region.cpp"
#include "memory_window.cpp"
#include "object_registry.cpp"
#include "page_list.cpp"
#include "ports.cpp"
#include "protection_domains.cpp"
#include "qp_attributes.cpp"
#include "queue_pair.cpp"
#include "shared_receive_queue.cpp"
#include "user_buffer.cpp"
#include "wqe_builder.cpp"
