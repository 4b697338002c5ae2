"""Every system by name: how to build it (imported when first built), its figure in the
paper's Table 2 (task 6) and what it is. ``table2``, the Python API and the docs read
them here.

A system of the registry is a ``systems.interface.System``: settings in its constructor,
``fit(train, dev)``. One that ranks a set of candidate responses (``ranks_candidates``)
takes them as the constructor's ``candidates=`` (a tuple of utterances).
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from ..errors import Dstc2ConvError
from ..evaluate.published import LATER, REPORTED

if TYPE_CHECKING:
    from .interface import System


class NotAvailable(Dstc2ConvError):
    """A system whose code, or a library it needs, is not installed."""


@dataclass(frozen=True)
class Entry:
    name: str
    target: str                     # "module:Class", imported when the system is first built
    paper: str                      # its row in the paper's Table 2 (``evaluate.published.REPORTED``),
                                    # or the later system it aims at (``LATER``)
    description: str
    ranks_candidates: bool = False  # takes the candidate responses as candidates=
    settings: tuple = ()            # fixed constructor settings, (name, value) pairs

    @property
    def reported(self) -> tuple[float, float | None]:
        """The (per-response, per-dialog) accuracy on the test file, in percent, that the
        paper (or the later system's) reports; None where it gives none."""
        return next((r, d) for name, r, d in (*REPORTED, *LATER) if name == self.paper)

    def load(self) -> type[System]:
        """The system's class; NotAvailable when its module or a library it needs is not installed."""
        module, _, cls = self.target.partition(":")
        try:
            return getattr(import_module(module), cls)
        except ImportError as exc:
            missing = getattr(exc, "name", None) or str(exc)
            if missing == module or module.startswith(f"{missing}."):
                raise NotAvailable(f"{self.name}: not in this version of dstc2conv") from None
            raise NotAvailable(f"{self.name}: needs the package {missing!r}, which is not installed") from None

    def build(self, candidates: tuple[str, ...] | None = None, **settings) -> System:
        """The system with its fixed settings, ``settings``, and (if it ranks candidates)
        ``candidates``; not fitted."""
        given = dict(self.settings, **settings)
        if self.ranks_candidates and candidates is not None:
            given["candidates"] = tuple(candidates)
        return self.load()(**given)


SYSTEMS: dict[str, Entry] = {e.name: e for e in (
    Entry("rules", "dstc2conv.systems.rules.system:Rules", "rule-based",
          "the rule baseline: the YAML rules shipped with dstc2conv (dstc2.yaml)"),
    Entry("tfidf", "dstc2conv.systems.ir.tfidf:TfIdfMatch", "TF-IDF Match",
          "TF-IDF Match: the candidate closest to the input by tf-idf cosine (the input chosen on DEV)",
          ranks_candidates=True),
    Entry("nn", "dstc2conv.systems.ir.nearest:NearestNeighbor", "Nearest Neighbor",
          "Nearest Neighbor: the answer of the training pair whose user utterance shares most words"),
    Entry("embeddings", "dstc2conv.systems.embeddings:SupervisedEmbeddings", "supervised embeddings",
          "supervised embeddings: the conversation and the candidate as bags of embedded words, "
          "trained with a margin ranking loss", ranks_candidates=True),
    Entry("memn2n", "dstc2conv.systems.memn2n:MemN2N", "MemN2N",
          "MemN2N: an end-to-end memory network over the dialog so far", ranks_candidates=True),
    Entry("memn2n+match", "dstc2conv.systems.memn2n:MemN2N", "MemN2N + match type",
          "MemN2N with match-type features: a candidate's KB entities said earlier in the dialog",
          ranks_candidates=True, settings=(("match", True),)),
    Entry("rules+learned", "dstc2conv.systems.chooser.system:RulesLearned", "HCN (Williams, Asadi & Zweig 2017)",
          "the shipped rules propose (their responses and the templates of TRN filled from their state), "
          "a chooser learned on TRN decides"),
)}
NAMES = tuple(SYSTEMS)


def entry(name: str) -> Entry:
    """The registry's entry for ``name``; an error naming the known ones otherwise."""
    found = SYSTEMS.get(name)
    if found is None:
        import difflib

        close = difflib.get_close_matches(name, NAMES, n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise Dstc2ConvError(f"no system {name!r}{hint}: give one of {', '.join(NAMES)}")
    return found


def build(name: str, candidates: tuple[str, ...] | None = None, **settings) -> System:
    """``entry(name).build(...)``."""
    return entry(name).build(candidates, **settings)


def reported(figures: tuple[float, float | None]) -> str:
    """A reported (per-response, per-dialog) pair as the tables print it: ``41.1% / 0.0%``;
    ``55.6% / -`` where no per-dialog figure was reported."""
    return " / ".join("-" if f is None else f"{f:.1f}%" for f in figures)


def docs_table() -> str:
    """The markdown table of the registry (docs/table2.md holds it, a test checks it)."""
    lines = ["| name | the paper's row | paper, per response / per dialog | what it is |", "|---|---|---|---|"]
    for e in SYSTEMS.values():
        lines.append(f"| `{e.name}` | {e.paper} | {reported(e.reported)} | {e.description} |")
    return "\n".join(lines)


__all__ = ["docs_table", "reported", "Entry", "NotAvailable", "SYSTEMS", "NAMES", "entry", "build"]
