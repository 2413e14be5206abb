// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The few type utilities the core needs, built on compiler builtins:
// the freestanding build (-nostdinc) has no <type_traits> or <utility>.
#ifndef VHCA_CORE_TYPE_TRAITS_H
#define VHCA_CORE_TYPE_TRAITS_H

#include <stddef.h>
#include <stdint.h>

namespace vhca {

template <typename T> struct RemoveReference { using Type = T; };
template <typename T> struct RemoveReference<T&> { using Type = T; };
template <typename T> struct RemoveReference<T&&> { using Type = T; };

template <typename T>
constexpr typename RemoveReference<T>::Type&& Move(T&& value) noexcept {
  return static_cast<typename RemoveReference<T>::Type&&>(value);
}

template <typename T>
constexpr T&& Forward(typename RemoveReference<T>::Type& value) noexcept {
  return static_cast<T&&>(value);
}

template <typename T>
inline constexpr bool kIsTriviallyCopyable = __is_trivially_copyable(T);

template <typename T>
inline constexpr bool kIsTriviallyDestructible = __has_trivial_destructor(T);

template <typename T, size_t N>
constexpr size_t ArraySize(const T (&)[N]) noexcept {
  return N;
}

}  // namespace vhca

#endif  // VHCA_CORE_TYPE_TRAITS_H
