// SPDX-License-Identifier: GPL-2.0-or-later
// A file's SHA-256, which a profile records for the program it measured, so
// a profile of another build can say so.
#ifndef SLURM_PIN_FILE_SHA256_HH
#define SLURM_PIN_FILE_SHA256_HH

#include <string>

namespace slurmpin {

// 64 lowercase hex digits, or "-" when the file cannot be read.
std::string file_sha256(const std::string& path);

}  // namespace slurmpin

#endif
