// SPDX-License-Identifier: GPL-2.0-or-later
// Text that came from a file or a user, made safe to print on a terminal or
// in a log: control bytes (ESC, BEL, backspace, CR, LF...), DEL and the C1
// controls (U+0080-U+009F as UTF-8) become \xNN, so no profile, name or
// message can move the cursor, rewrite a line or forge one.
#pragma once
#include <string>

namespace slurmpin {

std::string printable(const std::string& text);

}  // namespace slurmpin
