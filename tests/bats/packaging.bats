#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages build from the committed tree, hold what they should
# and pass lintian; the extracted CLI runs. The RPM packages build too.

load helpers

# tests/run-all keeps the packages (SLURM_PIN_DEBS) to install them and run
# the plugin's suites against the installed files.
setup_file() {
  export DEBS=${SLURM_PIN_DEBS:-$BATS_FILE_TMPDIR/debs}
  rm -f "$DEBS"/*.deb
  "$BATS_TEST_DIRNAME/../../packaging/build-deb" "$DEBS" >&2
}

contents() { dpkg -c "$DEBS/$1"_0.1.0-1_amd64.deb | awk '{ print $6 }'; }

@test "slurm-pin holds the CLI, which runs from the package, and the Lua policy" {
  contents slurm-pin | grep -qx './usr/bin/slurm-pin'
  contents slurm-pin | grep -qx './usr/libexec/slurm-pin/slurm-pin-policy'
  contents slurm-pin | grep -qx './usr/share/slurm-pin/lua/job_submit.lua'
  # The docs the commands and manual pages point to, and the example rules docs/policy.md copies.
  for doc in README.md evaluate.md policy.md placement.md formats.md; do
    contents slurm-pin | grep -qx "./usr/share/doc/slurm-pin/$doc.gz" || { echo "missing $doc"; false; }
  done
  contents slurm-pin | grep -qx './usr/share/doc/slurm-pin/examples/slurm-pin-policy.lua'
  dpkg -x "$DEBS/slurm-pin_0.1.0-1_amd64.deb" "$BATS_FILE_TMPDIR/root"
  run "$BATS_FILE_TMPDIR/root/usr/libexec/slurm-pin/slurm-pin-policy" check "$BATS_TEST_DIRNAME/../../etc/slurm-pin-policy.lua"
  [ "$status" -eq 0 ]
  run "$BATS_FILE_TMPDIR/root/usr/bin/slurm-pin" place --topology "$TOPO/core2.xml" --strategy scatter \
    --threads 4 --format likwid
  [ "$status" -eq 0 ]
  [ "$output" = "0,4,2,6" ]
}

@test "slurm-pin-spank holds the plugin where Debian's Slurm loads plugins, and the example config" {
  contents slurm-pin-spank | grep -qx './usr/lib/x86_64-linux-gnu/slurm-wlm/slurm_pin.so'
  contents slurm-pin-spank | grep -qx './usr/libexec/slurm-pin/slurm-pin-doctor'
  contents slurm-pin-spank | grep -qx './usr/libexec/slurm-pin/slurm-pin-plugstack-check'
  # The default store, root's, that users can read (docs/profiler.md "The store").
  dpkg -c "$DEBS/slurm-pin-spank_0.1.0-1_amd64.deb" | grep -qE '^drwxr-xr-x root/root .* \./var/lib/slurm-pin/profiles/$'
  contents slurm-pin-spank | grep -qx './usr/lib/x86_64-linux-gnu/slurm-pin/libslurm_pin_threads.so'
  contents slurm-pin-spank | grep -qx './usr/share/doc/slurm-pin-spank/examples/plugstack.conf'
  # The plugin's engine ships with it, a private library out of the library
  # path (the public libslurmpin1 does not export what the plugin uses).
  contents slurm-pin-spank | grep -qx './usr/lib/x86_64-linux-gnu/slurm-pin/libslurmpin_frontend.so'
  ! dpkg -I "$DEBS/slurm-pin-spank_0.1.0-1_amd64.deb" | grep -q 'Depends:.*libslurmpin1' || false
  dpkg -I "$DEBS/libslurmpin1_0.1.0-1_amd64.deb" | grep -q 'Depends:.*libhwloc15'
  # Tied to the Slurm major.minor it was built against (Slurm refuses others).
  mm=$(dpkg-query -W -f='${Version}' libslurm-dev | sed -E 's/^([0-9]+:)?([0-9]+\.[0-9]+).*/\2/')
  dpkg -I "$DEBS/slurm-pin-spank_0.1.0-1_amd64.deb" |
    grep -q "Depends:.*slurm-wlm-basic-plugins (>= $mm~), slurm-wlm-basic-plugins (<< "
}

@test "slurm-pin-profiler holds the commands, the valgrind tool with its links, and the runtimes" {
  for f in usr/libexec/slurm-pin/slurm-pin-profile usr/libexec/slurm-pin/slurm-pin-profiles \
    usr/lib/x86_64-linux-gnu/slurm-pin/valgrind/slurmpin-amd64-linux \
    usr/lib/x86_64-linux-gnu/slurm-pin/valgrind/vgpreload_slurmpin-amd64-linux.so \
    usr/lib/x86_64-linux-gnu/slurm-pin/libslurm_pin_tsan.so usr/lib/x86_64-linux-gnu/slurm-pin/libslurm_pin_ompt.so; do
    contents slurm-pin-profiler | grep -qx "./$f"
  done
  # valgrind's own preloads, linked beside the tool (VALGRIND_LIB needs both)
  listing=$(dpkg -c "$DEBS/slurm-pin-profiler_0.1.0-1_amd64.deb")
  # The tool links one Valgrind's static core: exactly that Valgrind.
  dpkg -I "$DEBS/slurm-pin-profiler_0.1.0-1_amd64.deb" |
    grep -q "Depends:.*valgrind (= $(dpkg-query -W -f='${Version}' valgrind))"
  [[ "$listing" == *"slurm-pin/valgrind/vgpreload_core-amd64-linux.so -> "*"libexec/valgrind/vgpreload_core-amd64-linux.so"* ]]
  # The MPI traffic libraries, one package per MPI, each depending on its MPI only.
  local mpi lib
  for mpi in openmpi:libopenmpi mpich:libmpich; do
    contents "slurm-pin-profiler-${mpi%%:*}" | grep -qx "./usr/lib/x86_64-linux-gnu/slurm-pin/libslurm_pin_mpi_${mpi%%:*}.so"
    dpkg -I "$DEBS/slurm-pin-profiler-${mpi%%:*}_0.1.0-1_amd64.deb" | grep -q "Depends:.*${mpi#*:}"
  done
  ! dpkg -I "$DEBS/slurm-pin-profiler_0.1.0-1_amd64.deb" | grep -q "Depends:.*libmpich" || false
}

@test "libslurmpin1 holds the shared library; libslurmpin-dev the header, link, pkg-config and CMake files" {
  contents libslurmpin1 | grep -qx './usr/lib/x86_64-linux-gnu/libslurmpin.so.1.0.0'
  [ "$(contents libslurmpin-dev | grep -c '^\./usr/include/slurm_pin/.*\.h$')" -eq 1 ]  # the one public header
  for f in usr/include/slurm_pin/slurm_pin.h usr/lib/x86_64-linux-gnu/libslurmpin.so \
    usr/lib/x86_64-linux-gnu/pkgconfig/slurm-pin.pc usr/lib/x86_64-linux-gnu/cmake/slurm-pin/slurm-pinConfig.cmake; do
    contents libslurmpin-dev | grep -qx "./$f"
  done
  contents libslurmpin-dev | grep -qE '^\./usr/share/doc/libslurmpin-dev/api\.md(\.gz)?$'  # the API's map
}

@test "lintian finds no error and no warning (overrides say why)" {
  debs=$(ls "$DEBS"/*.deb | grep -v dbgsym)
  run lintian --fail-on error,warning $debs
  echo "$output"
  expect_status 0
  ! grep -E '^[EW]: ' <<<"$output" || false
}

@test "the RPM spec builds for real (rpmbuild -bb), with the Slurm and Valgrind it was built against" {
  top=$BATS_FILE_TMPDIR/rpm
  mkdir -p "$top/SOURCES"
  "$BATS_TEST_DIRNAME/../../packaging/source-tar" slurm-pin-0.1.0 | gzip >"$top/SOURCES/slurm-pin-0.1.0.tar.gz"
  # Debian's rpm cannot see dpkg's packages: the build dependencies are
  # installed, but as .debs (--nodeps); no debuginfo tooling here either.
  run rpmbuild -bb --nodeps --define "_topdir $top" --define 'debug_package %{nil}' \
    "$BATS_TEST_DIRNAME/../../packaging/rpm/slurm-pin.spec"
  [ "$status" -eq 0 ] || { tail -30 <<<"$output"; return 1; }
  rpms=$top/RPMS/x86_64
  for p in slurm-pin slurm-pin-spank slurm-pin-profiler slurm-pin-profiler-openmpi slurm-pin-profiler-mpich \
    slurm-pin-libs slurm-pin-devel; do
    [ -f "$rpms/$p-0.1.0-1.x86_64.rpm" ]
  done
  rpm -qlp "$rpms/slurm-pin-spank-0.1.0-1.x86_64.rpm" | grep -qx '/usr/lib64/slurm/slurm_pin.so'
  rpm -qlp "$rpms/slurm-pin-0.1.0-1.x86_64.rpm" | grep -qx '/usr/libexec/slurm-pin/slurm-pin-policy'
  mm=$(dpkg-query -W -f='${Version}' libslurm-dev | sed -E 's/^([0-9]+:)?([0-9]+\.[0-9]+).*/\2/')
  rpm -qp --requires "$rpms/slurm-pin-spank-0.1.0-1.x86_64.rpm" | grep -qx "slurm >= $mm"
  rpm -qp --requires "$rpms/slurm-pin-profiler-0.1.0-1.x86_64.rpm" | grep -q "^valgrind = 1:$(valgrind --version | sed 's/^valgrind-//')$"
}
