# SPDX-License-Identifier: GPL-2.0-or-later
# For suites that run slurm-pin evaluate: a program whose figures are known.

# The program's figure from fixed lists, so the protocol's decisions are
# known (tests/python/test_speedup_test.py checks them without Slurm): the
# nth run under strategy S prints the nth value of S's list. none and
# scatter hold the same values (one distribution), compact the same shape
# 0.5 lower: the mean of compact is a speedup by Student's t-test (both
# Gaussian, equal variances), its median needs more than 10 runs, scatter
# is not significant either way. A file fail.S.N makes that run fail once.
figures_program() {
  local dir=$WORK/figures
  rm -rf "$dir" && install -d -m 777 "$dir"
  cat >"$dir/lists" <<'LISTS'
none 2.00 2.05 1.95 2.10 1.90 2.02 1.98 2.07 1.93 2.00
compact 1.50 1.55 1.45 1.60 1.40 1.52 1.48 1.57 1.43 1.50
scatter 1.98 2.00 2.07 1.90 2.02 2.05 1.93 2.10 1.95 2.00
LISTS
  cat >"$dir/figures.sh" <<SCRIPT
#!/bin/sh
s=\${SLURM_PIN_STRATEGY:-none}
case \$s in file:*) s=scatter ;; esac  # the third strategy: its figures are scatter's list
n=\$(( \$(cat "$dir/count.\$s" 2>/dev/null || echo 0) + 1 ))
if [ -e "$dir/fail.\$s.\$n" ]; then rm -f "$dir/fail.\$s.\$n"; echo "injected failure" >&2; exit 3; fi
echo \$n >"$dir/count.\$s"
echo "time: \$(sed -n "s/^\$s //p" "$dir/lists" | cut -d' ' -f\$n)"
SCRIPT
  chmod a+rx "$dir/figures.sh"
  echo "$dir/figures.sh"
}
