# SPDX-License-Identifier: GPL-2.0-or-later
"""The task split's quality on the node-kind fixtures (bench/split/run):

    python3 split_quality.py FIXTURE_DIR SLURM_PIN [OTHER_SLURM_PIN]

For each node-*.xml and each command, over 2 to 16 tasks (`slurm-pin place
--strategy compact --tasks N`): how many task counts leave a core idle, the
largest difference in cores between two tasks, how many put a task across a
NUMA node or package although the tasks divide those evenly. The same for
each gpu-*.xml with `--gpu closest`, plus how many task counts put a task
before the one ahead of it in node order (its first CPU lower)."""
import glob
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

TASKS = range(2, 17)


def bits(mask):
    """hwloc's XML bitmap ("0x0000ff00,0x000000ff") as a set of PU ids."""
    v = 0
    for word in mask.replace("0x", "").split(","):
        v = (v << 32) | (int(word, 16) if word else 0)
    return {i for i in range(v.bit_length()) if v >> i & 1}


def domains(path, kind):
    """The PU sets of every object of `kind` in the topology."""
    return [bits(o.get("cpuset")) for o in ET.parse(path).iter("object")
            if o.get("type") == kind and o.get("cpuset")]


def core_of(path):
    """PU id -> core number."""
    return {pu: i for i, core in enumerate(domains(path, "Core")) for pu in core}


def cpus(text):
    """A placement file's CPU list words ("0-1", "4,36") as ids."""
    out = []
    for word in text.split():
        for part in word.split(","):
            a, _, b = part.partition("-")
            out += range(int(a), int(b or a) + 1)
    return out


def shares(binary, path, tasks, extra):
    """Each task's CPUs as the command places them, or None on error."""
    r = subprocess.run([binary, "place", "--topology", path, "--strategy", "compact", "--tasks", str(tasks),
                        "--format", "placement"] + extra, capture_output=True, text=True)
    if r.returncode:
        return None
    return [set(cpus(line.split(":", 1)[1])) for line in r.stdout.splitlines() if line.startswith("task ")]


def stats(binary, path, extra=()):
    numa, packages, core = domains(path, "NUMANode"), domains(path, "Package"), core_of(path)
    idle = spread = across = bad_counts = reordered = 0
    for tasks in TASKS:
        s = shares(binary, path, tasks, list(extra))
        if s is None:
            continue
        firsts = [min(share) for share in s]
        out_of_order = any(b < a for a, b in zip(firsts, firsts[1:]))
        reordered += out_of_order
        sizes = [len({core[p] for p in share}) for share in s]
        spread = max(spread, max(sizes) - min(sizes))
        left_idle = len({core[p] for share in s for p in share}) < len(set(core.values()))
        crosses = any(len(d) > 1 and tasks % len(d) == 0 and
                      any(sum(1 for dom in d if dom & share) > 1 for share in s) for d in (numa, packages))
        idle += left_idle
        across += crosses
        bad_counts += left_idle or crosses or out_of_order
    text = "%2d idle, spread %d, %2d across" % (idle, spread, across)
    if extra:
        text += ", %2d reordered" % reordered
    return text + "; %2d/%d bad" % (bad_counts, len(TASKS))


def main():
    fixtures, binaries = sys.argv[1], sys.argv[2:]
    print("%-26s %s" % ("node kind (2-16 tasks)", " | ".join(binaries)))
    for path in sorted(glob.glob(os.path.join(fixtures, "node-*.xml"))):
        print("%-26s %s" % (os.path.basename(path), " | ".join(stats(b, path) for b in binaries)))
    for path in sorted(glob.glob(os.path.join(fixtures, "gpu-*.xml"))):
        name = os.path.basename(path) + " --gpu"
        print("%-26s %s" % (name, " | ".join(stats(b, path, ["--gpu", "closest"]) for b in binaries)))


main()
