#!/usr/bin/env python3
"""A stand-in of the published bAbI dialog release, for timing and trying
`dstc2conv table2 --release` where the test files are held out.

    python benchmarks/standin_release.py OUT [--reference DIR] [--tar]

Writes OUT/dialog-bAbI-tasks/ with, for tasks 1-5, the published train and dev files,
the dev file again as the test file, and the dev file's out-of-vocabulary stand-in
(benchmarks/babi_standin.py) as the OOV test file; the shared candidates and KB files;
and for task 6 its published train, dev and KB files, the dev file again as the test
file. The files come from ``--reference`` (default ../shared/reference beside the
checkout, with tasks 1-5 in its babi/ folder). ``--tar`` also packs the folder as
OUT/dialog_babi.tar.gz. Figures on it are dev figures (and the OOV stand-in's), never
test figures; nothing of it belongs in the project.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tarfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
STEMS = ("dialog-babi-task1-API-calls", "dialog-babi-task2-API-refine", "dialog-babi-task3-options",
         "dialog-babi-task4-phone-address", "dialog-babi-task5-full-dialogs")


def write(out: str, reference: str) -> str:
    """The stand-in release folder under ``out``; its path."""
    from babi_standin import write_standin

    from dstc2conv.errors import Dstc2ConvError

    babi = os.path.join(reference, "babi")
    root = os.path.join(out, "dialog-bAbI-tasks")
    os.makedirs(root, exist_ok=True)

    def copy(source: str, name: str) -> None:
        if not os.path.isfile(source):
            raise Dstc2ConvError("not found: give the folder of the published files with --reference", source)
        shutil.copyfile(source, os.path.join(root, name))

    for stem in STEMS:
        copy(os.path.join(babi, f"{stem}-trn.txt"), f"{stem}-trn.txt")
        copy(os.path.join(babi, f"{stem}-dev.txt"), f"{stem}-dev.txt")
        copy(os.path.join(babi, f"{stem}-dev.txt"), f"{stem}-tst.txt")
        write_standin(os.path.join(babi, f"{stem}-dev.txt"), os.path.join(root, f"{stem}-tst-OOV.txt"))
    for name in ("dialog-babi-candidates.txt", "dialog-babi-kb-all.txt"):
        copy(os.path.join(babi, name), name)
    six = "dialog-babi-task6-dstc2"
    for part in ("trn", "dev", "kb"):
        copy(os.path.join(reference, f"{six}-{part}.txt"), f"{six}-{part}.txt")
    copy(os.path.join(reference, f"{six}-dev.txt"), f"{six}-tst.txt")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the folder to write the stand-in release in")
    parser.add_argument("--reference", default=os.path.join(HERE, "..", "..", "shared", "reference"),
                        help="the published files (default ../shared/reference beside the checkout)")
    parser.add_argument("--tar", action="store_true", help="also pack it as OUT/dialog_babi.tar.gz")
    args = parser.parse_args()
    root = write(args.out, args.reference)
    print(root)
    if args.tar:
        packed = os.path.join(args.out, "dialog_babi.tar.gz")
        with tarfile.open(packed, "w:gz") as tar:
            tar.add(root, arcname="dialog-bAbI-tasks")
        print(packed)


if __name__ == "__main__":
    from script import run_main

    run_main(main)
