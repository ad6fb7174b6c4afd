// SPDX-License-Identifier: GPL-2.0-or-later
// Source lines of regions a backend gave as code addresses (the compiler
// runtime writes `code ID OBJECT ADDRESS`): addr2line turns them into
// "file.c:31", one process per object, when debug info has them.
#pragma once
#include "trace.hh"

namespace slurmpin {

// Fills h.sources for every region with a code address and no source yet.
void resolve_sources(RunHeader& h);

}  // namespace slurmpin
