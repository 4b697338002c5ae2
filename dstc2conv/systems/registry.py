"""Every system by name: how to build it (imported when first built), its figure in the
paper's Table 2 (task 6) and what it is. ``table2``, the Python API, the command line and
the docs read them here.

A name is one of the registry's, one a package registers through the entry-point group
``dstc2conv.systems`` (``name = "module:Class"``), or a ``module:Class`` on ``sys.path``
or in the current folder: anywhere a system is named, the three work alike. A system is a
``systems.interface.System``: settings in its constructor, ``fit(train, dev)``. One
whose constructor takes ``candidates`` is given the candidate responses (a tuple of
utterances) that the others are ranked among.
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from ..errors import Dstc2ConvError
from ..evaluate import published as figures

if TYPE_CHECKING:
    from .interface import System


class NotAvailable(Dstc2ConvError):
    """A system whose code, or a library it needs, is not installed."""


@dataclass(frozen=True)
class Entry:
    name: str
    target: str                     # "module:Class", imported when the system is first built
    paper: str                      # its column in the paper's Table 2 (``evaluate.published.SYSTEMS``),
                                    # or the later system it aims at (``LATER``); "" for none
    description: str
    settings: tuple = ()            # fixed constructor settings, (name, value) pairs

    def reported(self, row: str = "T6") -> tuple[float | None, float | None]:
        """The (per-response, per-dialog) accuracy, in percent, that the paper reports on
        its Table 2 row ``row`` (``evaluate.published.ROWS``; a later system's: on task 6's
        test file only); None where none is reported."""
        later = figures.LATER if row == "T6" else ()
        return next(((r, d) for name, r, d in (*figures.reported(row), *later) if name == self.paper), (None, None))

    def load(self) -> type[System]:
        """The system's class; NotAvailable when its module or a library it needs is not installed."""
        module, _, cls = self.target.partition(":")
        try:
            return getattr(_import(module), cls)
        except ImportError as exc:
            missing = getattr(exc, "name", None) or str(exc)
            if missing == module or module.startswith(f"{missing}."):
                if module.startswith("dstc2conv."):
                    raise NotAvailable(f"{self.name}: not in this version of dstc2conv") from None
                raise NotAvailable(f"{self.name}: no module {module} on sys.path") from None
            raise NotAvailable(f"{self.name}: needs the package {missing!r}, which is not installed") from None
        except AttributeError:
            raise NotAvailable(f"{self.name}: the module {module} has no {cls}") from None

    def system_class(self) -> type[System]:
        """``load()``, checked to be a System."""
        from .interface import System

        cls = self.load()
        if not (isinstance(cls, type) and issubclass(cls, System)) or cls is System:
            raise Dstc2ConvError(f"{self.name}: {self.target} is not a dstc2conv System (a subclass of "
                                 "dstc2conv.System)")
        return cls

    def ranks_candidates(self) -> bool:
        """Whether its constructor takes the candidate responses (``candidates=``)."""
        return "candidates" in inspect.signature(self.system_class()).parameters

    def build(self, candidates: tuple[str, ...] | None = None, **settings) -> System:
        """The system with its fixed settings, ``settings``, and (if it ranks candidates)
        ``candidates``; not fitted. A setting it does not take is a Dstc2ConvError."""
        cls = self.system_class()
        given = dict(self.settings, **settings)
        if candidates is not None and self.ranks_candidates():
            given["candidates"] = tuple(candidates)
        try:
            inspect.signature(cls).bind(**given)
        except TypeError as exc:
            takes = [name for name, p in inspect.signature(cls).parameters.items()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "candidates"]
            raise Dstc2ConvError(f"{self.name}: {exc}" + (f"; its settings: {', '.join(takes)}" if takes else "")) \
                from None
        system = cls(**given)
        system.built_as = self.name
        return system


def _import(module: str):
    """The module; one found nowhere on ``sys.path`` is looked for in the current folder
    too, which is then added at the end of ``sys.path`` (``python -m`` has it first; the
    ``dstc2conv`` command would not have it at all)."""
    import os
    import sys

    try:
        return import_module(module)
    except ModuleNotFoundError as exc:
        top = module.partition(".")[0]
        here = os.getcwd()
        if exc.name != top or top == "dstc2conv" or any(p in ("", here) for p in sys.path) \
                or not os.path.exists(os.path.join(here, top)) and not os.path.isfile(os.path.join(here, f"{top}.py")):
            raise
        sys.path.append(here)
        import importlib

        importlib.invalidate_caches()
        return import_module(module)


SYSTEMS: dict[str, Entry] = {e.name: e for e in (
    Entry("rules", "dstc2conv.systems.rules.system:Rules", "rule-based",
          "the rule baseline: the YAML rules shipped with dstc2conv (babi.yaml on bAbI tasks 1-5, dstc2.yaml otherwise)"),
    Entry("tfidf", "dstc2conv.systems.ir.tfidf:TfIdfMatch", "TF-IDF Match",
          "TF-IDF Match: the candidate closest to the input by tf-idf cosine (the input chosen on DEV)"),
    Entry("nn", "dstc2conv.systems.ir.nearest:NearestNeighbor", "Nearest Neighbor",
          "Nearest Neighbor: the answer of the training pair whose user utterance shares most words"),
    Entry("embeddings", "dstc2conv.systems.embeddings:SupervisedEmbeddings", "supervised embeddings",
          "supervised embeddings: the conversation and the candidate as bags of embedded words, "
          "trained with a margin ranking loss"),
    Entry("memn2n", "dstc2conv.systems.memn2n:MemN2N", "MemN2N",
          "MemN2N: an end-to-end memory network over the dialog so far"),
    Entry("memn2n+match", "dstc2conv.systems.memn2n:MemN2N", "MemN2N + match type",
          "MemN2N with match-type features: a candidate's KB entities said earlier in the dialog",
          settings=(("match", True),)),
    Entry("rules+learned", "dstc2conv.systems.chooser.system:RulesLearned", "HCN (Williams, Asadi & Zweig 2017)",
          "the shipped rules propose (their responses and the templates of TRN filled from their state), "
          "a chooser learned on TRN decides"),
    Entry("hcn", "dstc2conv.systems.hcn.system:HCN", "HCN (Williams, Asadi & Zweig 2017)",
          "Hybrid Code Networks: the rules track and mask, the chooser's linear scores plus a GRU's over the "
          "dialog's bot turns choose the template, which the rules' state fills"),
    Entry("hcn+turn-dropout", "dstc2conv.systems.hcn.system:HCN", "Variational HCN + turn dropout (Shalyminov & Lee 2018)",
          "hcn trained with whole turns' recurrent input dropped (p = 0.1)",
          settings=(("turn_dropout", 0.1),)),
)}
NAMES = tuple(SYSTEMS)


GROUP = "dstc2conv.systems"     # the entry-point group a package registers its systems in


def plugins() -> dict[str, Entry]:
    """The systems that installed packages register (entry-point group ``dstc2conv.systems``)."""
    from importlib.metadata import entry_points

    found = {}
    for point in entry_points(group=GROUP):
        if point.name not in SYSTEMS and point.name not in found:
            found[point.name] = Entry(point.name, point.value, "", f"{point.value} (registered by a package)")
    return found


def entry(name: str, trust: bool = True) -> Entry:
    """The entry for ``name``: the registry's, a plugin's, or (``trust``) a ``module:Class``
    on ``sys.path``; an error naming the known ones otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"a system's name is a string, not a {type(name).__name__}")
    found = SYSTEMS.get(name) or plugins().get(name)
    if found is not None:
        return found
    module, colon, cls = name.partition(":")
    if colon and trust and module and cls.isidentifier() and all(p.isidentifier() for p in module.split(".")):
        return Entry(name, name, "", f"{name} (your own)")
    import difflib

    known = (*NAMES, *plugins())
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise Dstc2ConvError(f"no system {name!r}{hint}: give one of {', '.join(known)}, or module:Class")


def build(name: str, candidates: tuple[str, ...] | None = None, **settings) -> System:
    """``entry(name).build(...)``."""
    return entry(name).build(candidates, **settings)


def trusted(name: str) -> bool:
    """Whether a model folder saved by the system ``name`` is loaded without naming it: one
    of the registry's or a plugin's, or a class of dstc2conv's own modules (which run
    nothing when imported; a plugin's class is installed to be imported)."""
    return name in SYSTEMS or name.startswith("dstc2conv.") or name in plugins() \
        or name in {e.target for e in plugins().values()}


def load(folder: str | os.PathLike, system: str | None = None) -> System:
    """The system saved in a model folder (``systems.folder``), fitted. A system saved by
    ``module:Class`` (not the registry's, nor a class of dstc2conv's own modules, which run
    nothing when imported, nor one a plugin registers) is imported only if ``system`` names
    it too: a folder cannot make this process import a module of its choosing."""
    from . import folder as model_folder

    folder = os.fspath(folder)
    meta = model_folder.read_meta(folder)
    path = os.path.join(folder, model_folder.META)
    name = meta["system"]
    if system is not None and system != name:
        raise Dstc2ConvError(f"a model of {name}, not of {system}", path)
    try:
        cls = entry(name, trust=system is not None or trusted(name)).system_class()
    except NotAvailable as exc:
        raise Dstc2ConvError(exc.message, path) from None
    except Dstc2ConvError:
        raise Dstc2ConvError(f"a model of {name}, which is not a system of this dstc2conv nor of a plugin; one of "
                             f"your own is loaded when you name it: load(folder, system={name!r}), or --system "
                             f"{name}", path) from None
    if model_folder.class_path(cls) != meta["class"]:
        raise Dstc2ConvError(f"a model of {meta['class']}, but {name} is {model_folder.class_path(cls)} here", path)
    try:
        built = cls(**meta["settings"])
        weights = model_folder.member(folder, model_folder.WEIGHTS)
        arrays = model_folder.read_arrays(weights, built.expected_arrays(meta["facts"]), meta.get("weights_sha256"))
        built.restore(meta["facts"], arrays)
    except Dstc2ConvError as exc:
        if exc.path:
            raise
        raise Dstc2ConvError(f"a damaged model: {exc.message}", path) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        raise Dstc2ConvError(f"a damaged model: {type(exc).__name__}: {exc}", path) from None
    built.built_as = name
    built.about = meta["about"]
    return built


def reported(figures: tuple[float | None, float | None]) -> str:
    """A reported (per-response, per-dialog) pair as the tables print it: ``41.1% / 0.0%``;
    ``55.6% / -`` where no per-dialog figure was reported."""
    return " / ".join("-" if f is None else f"{f:.1f}%" for f in figures)


def listed(code: bool = False) -> str:
    """The registry's names as help texts and the docs list them: ``rules, tfidf, ...``
    (``code``: each in backticks, as markdown)."""
    return ", ".join(f"`{name}`" if code else name for name in NAMES)


def docs_table() -> str:
    """The markdown table of the registry (docs/table2.md holds it, a test checks it)."""
    lines = ["| name | the paper's row | paper, per response / per dialog | what it is |", "|---|---|---|---|"]
    for e in SYSTEMS.values():
        lines.append(f"| `{e.name}` | {e.paper} | {reported(e.reported())} | {e.description} |")
    return "\n".join(lines)


__all__ = ["docs_table", "listed", "reported", "trusted", "Entry", "NotAvailable", "SYSTEMS", "NAMES", "GROUP", "entry", "build",
           "load", "plugins"]
