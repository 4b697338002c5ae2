"""Write the simulated files: dialogs made by chunks (each chunk's seed derived from the
seed, the task, the split and the chunk's index, so the files are the same whatever
``jobs``), streamed into the output folder and put in place together, or not at all."""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
import random
import signal
from collections.abc import Iterator
from dataclasses import dataclass

from ..builder.output_set import OutputFolder
from ..errors import Dstc2ConvError
from ..files import refuse_inputs
from ..reporter import note
from .kb import CANDIDATES_FILE, KB, KB_FILE, candidates_text, kb_from_values, kb_text, paper_kb, read_kb, read_values
from .requests import check, world
from .tasks import TASKS, dialog_text, file_name

CHUNK = 250        # dialogs a chunk: the unit of work of a process, and of the seeds


@dataclass(frozen=True)
class SimulateOptions:
    tasks: tuple[int, ...]
    splits: tuple[str, ...]
    dialogs: int = 1000
    seed: int = 0
    out: str = "outputs"
    kb: str | None = None          # a KB file to draw from
    values: str | None = None      # a YAML of values to build a KB of
    kb_seed: int = 0               # the party sizes of a KB built here
    jobs: int = 1


def load_kb(options: SimulateOptions) -> KB:
    if options.kb and options.values:
        raise Dstc2ConvError("give --kb or --values, not both")
    if options.kb:
        return read_kb(options.kb)
    if options.values:
        return kb_from_values(read_values(options.values), options.kb_seed)
    return paper_kb(options.kb_seed)


def chunk_seed(seed: int, task: int, split: str, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{task}:{split}:{index}".encode()).digest()[:8], "big")


_KB: KB | None = None     # in each process: the KB, and the worlds made of it
_WORLDS: dict = {}


def _start(kb: KB) -> None:
    global _KB
    _KB = kb
    _WORLDS.clear()


def make_chunk(job: tuple[int, str, int, int, int]) -> bytes:
    """The bytes (UTF-8) of ``count`` dialogs of chunk ``index``."""
    task, split, seed, index, count = job
    w = _WORLDS.get(split)
    if w is None:
        w = _WORLDS[split] = world(_KB, split)
    rng = random.Random(chunk_seed(seed, task, split, index))
    make = TASKS[task]
    return "".join([dialog_text(make(rng, w)) for _ in range(count)]).encode()


def _jobs(task: int, split: str, dialogs: int, seed: int) -> list[tuple]:
    return [(task, split, seed, i, min(CHUNK, dialogs - start)) for i, start in enumerate(range(0, dialogs, CHUNK))]


def _serve(conn, kb: KB, jobs: list[tuple]) -> None:
    """A worker: make its chunks in order and send each (a pipe holds little, so it waits
    until the command has taken the last one: memory stays that of a chunk or two)."""
    # Ctrl-C and a hang-up reach the whole group: the command stops, then kills its workers
    for name, action in (("SIGINT", signal.SIG_IGN), ("SIGHUP", signal.SIG_IGN), ("SIGTERM", signal.SIG_DFL)):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), action)
    _start(kb)
    try:
        for job in jobs:
            conn.send_bytes(b"\0" + make_chunk(job))
    except Exception as exc:       # said by the command, as it would be in one process
        conn.send_bytes(b"\1" + pickle.dumps(exc))
    finally:
        conn.close()


def chunks(kb: KB, jobs: list[tuple], processes: int = 1) -> Iterator[bytes]:
    """The chunks' bytes in order. With several processes, worker k makes chunks k, k + n,
    k + 2n ...; the chunks are taken from the workers in turn."""
    processes = min(processes, len(jobs))
    if processes <= 1:
        _start(kb)
        for job in jobs:
            yield make_chunk(job)
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    workers = []
    try:
        for k in range(processes):
            mine, theirs = context.Pipe(duplex=False)
            process = context.Process(target=_serve, args=(theirs, kb, jobs[k::processes]), daemon=True)
            process.start()
            theirs.close()
            workers.append((process, mine))
        for i in range(len(jobs)):
            data = workers[i % processes][1].recv_bytes()
            if data[:1] == b"\1":
                raise pickle.loads(data[1:])
            yield data[1:]
    finally:           # done, or stopped: the workers go at once
        for process, conn in workers:
            if process.is_alive():
                process.kill()
            process.join()
            conn.close()


class _Folder(OutputFolder):
    """The build's output folder, its files streamed in one by one."""

    def stream(self, name: str, pieces) -> None:
        try:
            with open(os.path.join(self._work, name), "wb") as fh:
                for piece in pieces:
                    fh.write(piece)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot write the outputs: {exc.strerror}", self.path) from None

    def put_in_place(self, names: list[str]) -> list[str]:
        return self.place(names, [])


def simulate(options: SimulateOptions) -> list[str]:
    """Write the dialog files of every task and split asked for, the KB file and the
    candidates file into ``options.out``; the paths written."""
    kb = load_kb(options)
    for task in options.tasks:
        for split in options.splits:
            check(world(kb, split), task, split)
    texts = {KB_FILE: kb_text(kb), CANDIDATES_FILE: candidates_text(kb)}
    names = [file_name(t, s) for t in options.tasks for s in options.splits]
    with _Folder(options.out) as folder:
        for name in [*names, *texts]:
            if texts.get(name) is None or texts[name] != folder.existing(name):
                refuse_inputs(os.path.join(folder.path, name))
        for task in options.tasks:
            for split in options.splits:
                note(f"task {task} {split}: {options.dialogs:,} dialogs")
                jobs = _jobs(task, split, options.dialogs, options.seed)
                folder.stream(file_name(task, split), chunks(kb, jobs, options.jobs))
        for name, text in texts.items():
            folder.stream(name, [text.encode()])
        return folder.put_in_place([*names, *texts])
