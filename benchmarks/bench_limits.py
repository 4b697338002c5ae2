#!/usr/bin/env python3
"""What the limits of docs/reliability.md guard against, and the shipped files beside them.

    python benchmarks/bench_limits.py [--rules rules/dstc2.yaml]
        [--data ../shared/reference/dialog-babi-task6-dstc2-trn.txt] [--repeats 100000] [--groups 1665 20000]

Prints, each measured in a fresh interpreter of its own where it is about memory or about
a compilation the ``regex`` module would cache:
- the memory of parsing the rule file (tracemalloc's peak over the file's size), by the
  rules' Python YAML parser, by their libyaml one, and of the whole ``load_rules`` (the
  parse, the checks, the regular expressions compiled and probed);
- the memory ``regex`` takes to compile ``a{N}`` (``--repeats`` N; the peak resident
  memory of a process that compiles it, less that of one that only imports regex), per
  repeat;
- the time to compile ``x(){N}`` for each ``--groups`` N (it grows with N's square);
- the time to compile a literal of 5,000 characters, per character;
- the CPU time of the rule file's probes (the budget ``PROBE_SECONDS`` bounds), and of the
  rules' regular expression searches while predicting every bot turn of --data (the
  budget ``RUN_SECONDS`` bounds).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"

PEAK = "import regex, resource{}; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
TIMED = "import regex, time; t = time.process_time(); regex.compile({!r}); print(time.process_time() - t)"
YAML_PEAK = """
import sys, tracemalloc
from dstc2conv.systems.rules import ruleset
path, how = sys.argv[1:]
text = open(path, encoding="utf-8").read()
tracemalloc.start()
if how == "load_rules":
    ruleset.load_rules(path)
else:
    loader = (ruleset._CLoader if how == "libyaml" else ruleset._Loader)(text, path)
    loader.get_single_data()
print(tracemalloc.get_traced_memory()[1])
"""


def child(code: str, *argv: str) -> str:
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          check=True).stdout.strip()


def yaml_memory(rules: str) -> None:
    size = os.path.getsize(rules)
    for how, label in (("python", "YAML, Python parser"), ("libyaml", "YAML, libyaml"),
                       ("load_rules", "the whole load_rules")):
        peak = int(child(YAML_PEAK, rules, how))
        print(f"{label:<25} {peak / 2**20:7.1f} MB peak for {size / 1000:.0f} kB: "
              f"{peak / size:.0f} x the file ({Path(rules).name})")


def regex_costs(repeats: int, groups: list[int]) -> None:
    bare = int(child(PEAK.format("")))
    grown = int(child(PEAK.format(f"; regex.compile('a{{{repeats}}}')")))
    print(f"regex a{{{repeats}}}          {(grown - bare) * 1024 / repeats:7.0f} bytes per repeat "
          f"(peak RSS {grown >> 10} MB against {bare >> 10} MB for import regex)")
    for n in groups:
        print(f"regex x(){{{n}}}           {float(child(TIMED.format(f'x(){{{n}}}'))):7.2f} s CPU to compile")
    literal = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(5000))
    seconds = float(child(TIMED.format(literal)))
    print(f"regex, a literal          {seconds * 1000 / len(literal):7.3f} ms a character "
          f"({len(literal)} characters: {seconds:.2f} s CPU)")


def budgets(rules: str, data: str) -> None:
    from dstc2conv.systems.rules import conditions
    from dstc2conv.systems.rules.engine import Compiled, predict
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6 import format as task6
    from dstc2conv.task6.turns import turns_of

    made: list = []
    init = conditions.Budget.__init__

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    conditions.Budget.__init__ = recorded
    turns = turns_of(task6.read(data))
    start = time.process_time()
    ruleset = load_rules(rules)
    loaded = time.process_time() - start
    probes = sum(b.seconds - b.left for b in made if b.seconds == conditions.PROBE_SECONDS)
    print(f"probes of {Path(rules).name:<15} {probes * 1000:7.1f} ms CPU (loading the file: {loaded * 1000:.0f} ms; "
          f"the limit: {conditions.PROBE_SECONDS:g} s)")
    made.clear()
    start = time.process_time()
    sum(1 for _ in predict(Compiled(ruleset), turns))
    predicting = time.process_time() - start
    searches = sum(b.seconds - b.left for b in made if b.seconds == conditions.RUN_SECONDS)
    print(f"searches on {Path(data).name} {searches:.2f} s CPU ({len(turns)} bot turns, "
          f"{predicting:.2f} s CPU predicting them; the limit: {conditions.RUN_SECONDS:g} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default=str(ROOT / "rules" / "dstc2.yaml"))
    parser.add_argument("--data", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--repeats", type=int, default=100_000, help="N of a{N} (default: 100000)")
    parser.add_argument("--groups", type=int, nargs="+", default=[1665, 20000], help="N of x(){N}")
    args = parser.parse_args()
    for path in (args.rules, args.data):
        if not os.path.exists(path):
            sys.exit(f"{path}: not found")
    yaml_memory(args.rules)
    regex_costs(args.repeats, args.groups)
    budgets(args.rules, args.data)


if __name__ == "__main__":
    from script import run_main

    run_main(main)
