# SPDX-License-Identifier: GPL-2.0-or-later
# find_package(slurm-pin) gives the imported target slurm-pin::slurmpin (the
# C API of slurm_pin/slurm_pin.h, libslurmpin.so).
# Its CPU sets are hwloc bitmaps: hwloc comes with it (as PkgConfig::HWLOC).
include(CMakeFindDependencyMacro)
find_dependency(PkgConfig)
if(NOT TARGET PkgConfig::HWLOC)
  pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/slurm-pin-targets.cmake)
