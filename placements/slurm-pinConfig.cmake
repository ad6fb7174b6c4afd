# SPDX-License-Identifier: GPL-2.0-or-later
# find_package(slurm-pin) gives the imported target slurm-pin::slurmpin (the
# C API of slurm_pin/placement.h, libslurmpin.so).
include(${CMAKE_CURRENT_LIST_DIR}/slurm-pin-targets.cmake)
