"""The processes that hold DSTC2's calls, and the one call that works on them: ``Calls.map``.

With ``--jobs N`` a source is read by N processes, each parsing a share of its calls
(``archive.read_source``); the calls stay where they were read, and ``Calls.map`` runs a
function on each call in the process that holds it. Its results come back in session
order, and a failing call's error is raised here, that of the first in session order,
so that what a build writes or says never depends on the number of processes.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Mapping
from typing import Callable

from ..errors import Dstc2ConvError
from .calls import Call


def _itself(call: Call) -> Call:
    return call


def _apply(function, calls: list[Call], args: tuple) -> tuple[list, tuple[int, Exception] | None]:
    """``function(call, *args)`` of each call, up to the first that raises; and that
    one's (index, error), or None."""
    results = []
    for call in calls:
        try:
            results.append(function(call, *args))
        except Exception as exc:
            return results, (len(results), exc)
    return results, None


class Calls(Mapping):
    """Calls by session, in session order. Each stays in the process that read it, this
    one or a worker process: ``map`` runs a function on each call there; only a call looked
    up (``calls[session]``) is brought here."""

    def __init__(self, here: dict, workers: tuple = (), owner: dict | None = None):
        self._here = here             # session -> Call, read by this process
        self._workers = workers       # the _Worker processes that hold the others
        self._owner = dict.fromkeys(here, 0) if owner is None else owner   # session -> 0 (here) or 1 + worker

    @classmethod
    def spread(cls, here: dict, workers: list[_Worker]) -> Calls:
        """The calls read here and those the ``workers`` (see ``start_workers``) read, once each
        says which it read; the error of the first that failed to read (the workers are
        then stopped)."""
        try:
            owner = dict.fromkeys(here, 0)
            for i, worker in enumerate(workers, 1):
                owner.update(dict.fromkeys(worker.read(), i))
        except BaseException:
            for worker in workers:
                worker.close()
            raise
        return cls(here, tuple(workers), {s: owner[s] for s in sorted(owner)})

    def __getitem__(self, session: str) -> Call:
        if self._owner[session] == 0:
            return self._here[session]
        return self.map(_itself, sessions=[session])[0]

    def __contains__(self, session) -> bool:
        return session in self._owner

    def __iter__(self):
        return iter(self._owner)

    def __len__(self) -> int:
        return len(self._owner)

    def map(self, function: Callable, *args, sessions=None) -> list:
        """``[function(call, *args) for each call of sessions]`` (default: every call, in
        session order), each run in the process that holds the call: the results in the
        order of ``sessions``. When calls raise, each process stops at its first, and the
        error of the first in the order of ``sessions`` is raised here."""
        order = list(self._owner if sessions is None else sessions)
        shares: list[list[int]] = [[] for _ in range(len(self._workers) + 1)]
        for i, session in enumerate(order):
            shares[self._owner[session]].append(i)
        busy = [(worker, share) for worker, share in zip(self._workers, shares[1:]) if share]
        for worker, share in busy:
            worker.send(function, [order[i] for i in share], args)
        results: list = [None] * len(order)
        failures: list[tuple[int, Exception]] = []
        replies = [(shares[0], lambda: _apply(function, [self._here[order[i]] for i in shares[0]], args))]
        replies += [(share, worker.receive) for worker, share in busy]
        for share, reply in replies:
            try:
                done, failed = reply()
            except Dstc2ConvError as exc:   # a worker that stopped
                failures.append((share[0], exc))
                continue
            for i, result in zip(share, done):
                results[i] = result
            if failed is not None:
                failures.append((share[failed[0]], failed[1]))
        if failures:
            raise min(failures, key=lambda failure: failure[0])[1]
        return results

    def gathered(self) -> Calls:
        """The same calls, every one brought into this process; the workers are stopped."""
        try:
            every = dict(zip(self._owner, self.map(_itself)))
        finally:
            self.close()
        return Calls(every)

    @classmethod
    def merged(cls, parts: list[Calls]) -> Calls:
        """The calls of several mappings; a session in more than one is the last one's."""
        here: dict = {}
        workers: list = []
        owner: dict = {}
        for part in parts:
            here.update(part._here)
            owner.update((s, w and w + len(workers)) for s, w in part._owner.items())
            workers.extend(part._workers)
        return cls(here, tuple(workers), owner)

    def close(self) -> None:
        """Stop the worker processes that hold calls."""
        for worker in self._workers:
            worker.close()


def start_workers(read: Callable[[tuple[int, int]], dict], processes: int) -> list[_Worker]:
    """Start ``processes - 1`` workers, the i-th reading its share by ``read((i, processes))``
    (a dict session -> Call); share 0 is this process's to read."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    started: list[_Worker] = []
    try:
        for i in range(1, processes):
            with _signals_held():
                started.append(_Worker(context, read, (i, processes)))
    except BaseException:
        for worker in started:
            worker.close()
        raise
    return started


# Ctrl-C and ``kill -TERM -PGID`` reach every process of the group: a worker ignores them,
# and the build process, which handles them, stops its workers (or they stop when it is gone).
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _signals_held:
    """Hold the stop signals while a worker starts (delivered to this process after), so
    that none reaches the new worker before it ignores them."""

    def __enter__(self):
        if hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread():
            self._held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        else:
            self._held = None

    def __exit__(self, *exc):
        if self._held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._held)


def _ignore_stop_signals() -> None:
    """In a worker: ignore the stop signals, then let through those held while it started."""
    for number in _STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)


class _Worker:
    """A process that reads a share of the calls of a source, keeps them and runs
    functions on them (``Calls.map``)."""

    def __init__(self, context, read: Callable, part: tuple[int, int]):
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, os.getpid(), read, part), daemon=True)
        self._process.start()
        theirs.close()

    def read(self) -> list[str]:
        """The sessions this worker read; its reading error, raised."""
        sessions, failed = self.receive()
        if failed is not None:
            raise failed[1]
        return sessions

    def send(self, function, sessions: list[str], args: tuple) -> None:
        try:
            self._conn.send((function, sessions, args))
        except OSError:
            pass   # the worker is gone: receive() says so

    def receive(self) -> tuple[list, tuple[int, Exception] | None]:
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            raise Dstc2ConvError(f"a worker process stopped (exit code {self._process.exitcode})") from None

    def close(self) -> None:
        self._conn.close()
        self._process.kill()     # it ignores SIGTERM (``_ignore_stop_signals``); it holds nothing to clean up
        self._process.join()


def _die_with(parent: int) -> None:
    """In a worker process: exit as soon as the build process that started it is gone
    (killed, even with SIGKILL), whether the worker is reading or waiting for work."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _serve(conn, parent: int, read: Callable, part: tuple[int, int]) -> None:
    """A worker: read a share of the calls, send their sessions (or the error), then run
    what it is sent on them until the connection is closed."""
    _ignore_stop_signals()
    _die_with(parent)
    gc.disable()   # as in the build
    calls: dict = {}
    try:
        calls = read(part)
        reply = (list(calls), None)
    except Exception as exc:
        reply = ([], (0, exc))
    while True:
        try:
            conn.send(reply)
            function, sessions, args = conn.recv()
        except (EOFError, OSError):
            return
        reply = _apply(function, [calls[s] for s in sessions], args)


__all__ = ["Calls", "start_workers"]
