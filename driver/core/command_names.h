// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// The names of the device's commands and command statuses, for the log.
// Made from uapi's rows (VHCA_CMD_BASE_OPCODES, VHCA_CMD_VERBS_OPCODES,
// VHCA_CMD_STATUSES), so no opcode or status is written here again.
#ifndef VHCA_CORE_COMMAND_NAMES_H
#define VHCA_CORE_COMMAND_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "vhca_hw.h"

namespace vhca {

struct CommandName {
  uint16_t value;
  const char* name;  // without the VHCA_CMD_ prefix
};

// X(VHCA_CMD_CREATE_QP, 0x0040) -> {0x0040, "CREATE_QP"}.
#define VHCA_CORE_COMMAND_NAME_ROW(name, value) \
  {value, #name + sizeof("VHCA_CMD_") - 1},

inline constexpr CommandName kCommandOpcodeNames[] = {
    VHCA_CMD_BASE_OPCODES(VHCA_CORE_COMMAND_NAME_ROW)
    VHCA_CMD_VERBS_OPCODES(VHCA_CORE_COMMAND_NAME_ROW)};

inline constexpr CommandName kCommandStatusNames[] = {
    VHCA_CMD_STATUSES(VHCA_CORE_COMMAND_NAME_ROW)};

#undef VHCA_CORE_COMMAND_NAME_ROW

// The row's name, or "unknown".  A scan: only the error paths ask.
template <size_t N>
inline const char* CommandNameOf(const CommandName (&rows)[N],
                                 uint16_t value) {
  for (const CommandName& row : rows)
    if (row.value == value) return row.name;
  return "unknown";
}

inline const char* OpcodeName(uint16_t opcode) {
  return CommandNameOf(kCommandOpcodeNames, opcode);
}

inline const char* StatusName(uint8_t status) {
  return CommandNameOf(kCommandStatusNames, status);
}

}  // namespace vhca

#endif  // VHCA_CORE_COMMAND_NAMES_H
