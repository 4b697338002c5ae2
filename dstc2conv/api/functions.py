"""The functions ``import dstc2conv`` offers: read and write task-6 files and walk their
bot turns, build, compare, load rules, name a system and predict with it, score; and
the tables (pandas DataFrames, ``frames``) of turns, scores, the rules report and table2.

They stand on top of the pipeline and do what the commands do, with the same options
and the same figures; bad input raises the ``Dstc2ConvError`` the command would print.
Nothing here prints. Each stage is imported when its function is first called.
"""
from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from ..errors import Dstc2ConvError, naming

if TYPE_CHECKING:
    import pandas

    from ..builder.pipeline import BuildResult
    from ..evaluate.fidelity import CompareReport
    from ..evaluate.metrics import Scored
    from ..systems.interface import System
    from ..systems.rules.engine import Prediction
    from ..systems.rules.ruleset import RuleSet
    from ..systems.table2 import Table2
    from ..task6.format import Dialog
    from ..task6.turns import BotTurn

Path = Union[str, os.PathLike]


# ---------------------------------------------------------------- task-6 files

def read(path: Path) -> list[Dialog]:
    """The dialogs of a task-6 file (none for an empty file); the error names the bad line."""
    from ..task6.format import read as read_file

    return read_file(path)


def write(dialogs: Iterable[Dialog], path: Path) -> None:
    """Write dialogs as a task-6 file, whole or not at all (written beside, then renamed).

    Every line is checked first, so that the file reads back as the same dialogs: no tab
    in an utterance, and no character that ``read`` refuses (line breaks of any kind, a
    byte-order mark, a lone surrogate: ``dstc2conv.task6.text``), context lines that are
    result facts (``name R_attr value``) or ``api_call no result``, no dialog without
    lines. The error names the line of the file that would have been written, the dialog
    (from 1), and what ``read`` would say of it.
    """
    from ..files import write_text_atomic
    from ..task6.format import serialize

    dialogs = list(dialogs)
    _check_dialogs(dialogs, os.fspath(path))
    write_text_atomic(os.fspath(path), serialize(dialogs))


def _check_dialogs(dialogs: list, path: str) -> None:
    from ..task6.format import NO_RESULT, Context, Dialog, Exchange, Fact, serialize_line, too_long
    from ..task6.text import problem

    lineno = 0
    for number, dialog in enumerate(dialogs, 1):
        if not isinstance(dialog, Dialog):
            raise TypeError(f"dialog {number} is a {type(dialog).__name__}, not a dstc2conv.Dialog")
        if not dialog.lines:
            raise Dstc2ConvError(f"dialog {number} has no lines", path, lineno + 1)
        start = lineno
        for line in dialog.lines:
            lineno += 1
            if isinstance(line, Exchange):
                for role, text in (("user", line.user), ("bot", line.bot)):
                    bad = problem(text)
                    if bad is not None:
                        raise Dstc2ConvError(f"dialog {number}, the {role} utterance {text[:60]!r}: {bad}",
                                             path, lineno)
            elif isinstance(line, Context):
                bad = problem(line.text)
                if bad is not None:
                    raise Dstc2ConvError(f"dialog {number}, the context line {line.text[:60]!r}: {bad}", path, lineno)
                if line.text != NO_RESULT and Fact.match(line.text) is None:
                    raise Dstc2ConvError(f"dialog {number}: a context line is neither a result fact "
                                         f"(name R_attr value) nor {NO_RESULT!r}: {line.text[:60]!r}", path, lineno)
            else:
                raise TypeError(f"dialog {number}: a line is a {type(line).__name__}, not an Exchange or a Context")
            bad = too_long(serialize_line(lineno - start, line)[:-1])
            if bad is not None:
                raise Dstc2ConvError(f"dialog {number}: {bad}", path, lineno)
        lineno += 1   # the empty line after the dialog


def turns(source: Path | Sequence[Dialog]) -> list[BotTurn]:
    """The bot turns of a task-6 file (or of dialogs read already), in file order: each
    with its dialog and turn (from 0), line, user utterance, gold bot utterance and the
    result lines after it. A file without dialogs or without bot turns is an error."""
    from ..task6.turns import read_turns, turns_of

    if isinstance(source, (str, os.PathLike)):
        return read_turns(source)
    return turns_of(list(source))


# ---------------------------------------------------------------- build and compare

def build(*, split: str, raw: Path | Sequence[Path] = (), out: Path = "outputs", seed: int = 0,
          kb: Path | None = None, partition: str = "published", user: str = "transcription",
          jobs: int | None = None, replace: bool = False, export: Sequence[str] = (),
          log: Callable[[str], None] | None = None, progress: Callable[[str], None] | None = None) -> BuildResult:
    """``dstc2conv build``, its options as keywords (``jobs`` None: the command's default,
    2 processes, or 1 on a one-core machine). Returns the written paths (``written``) and
    the manifest (``manifest``; ``manifest.to_json()`` is the text of manifest.json).
    ``export``: formats to export beside the task-6 files (``jsonl``, ``deeppavlov``).
    ``log`` and ``progress`` receive the notes and the progress lines the command prints
    on stderr; by default nothing is said."""
    from ..builder.pipeline import BuildOptions
    from ..builder.pipeline import build as run_build
    from ..files import guarded
    from ..reporter import reporting_to

    raws = (raw,) if isinstance(raw, (str, os.PathLike)) else tuple(raw)
    options = BuildOptions(split=split, raw=tuple(os.fspath(r) for r in raws), out=os.fspath(out), seed=seed,
                           kb=None if kb is None else os.fspath(kb), partition=partition, user=user,
                           jobs=min(2, os.cpu_count() or 1) if jobs is None else jobs, replace=replace,
                           exports=tuple(export))
    with guarded(), reporting_to(notes=log, progress=progress):   # never over a file it reads, as the command
        return run_build(options)


def compare(ours: Path, ref: Path, *, kb: Path | None = None, manifest: Path | None = None) -> CompareReport:
    """``dstc2conv compare``: how closely the built file ``ours`` reproduces the published
    ``ref``. The report has the measures (``report.measure("dialogs").rate``), the kinds
    of difference with examples, and ``identical``; ``to_dict()`` is the command's JSON."""
    from ..evaluate.align import compare_files

    return compare_files(ours, ref, kb=kb, manifest=manifest)


# ---------------------------------------------------------------- rules

def load_rules(path: Path | None = None) -> RuleSet:
    """A rule file, validated (None: the rules shipped with dstc2conv). Every problem of a
    bad file is in the error, one a line."""
    from ..systems.rules.ruleset import load_rules as load

    if path is None:
        from importlib import resources

        path = str(resources.files("dstc2conv.rulefiles") / "dstc2.yaml")
    return load(path)


def predict(system: System | RuleSet | Path,
            data: Path | Sequence[Dialog] | Sequence[BotTurn]) -> list[Prediction]:
    """Every bot turn's prediction by ``system``, for ``data`` (a task-6 file, its dialogs
    or its ``turns``): a ``Prediction`` per turn, its ``text`` and its ``rule``.

    ``system``: a rule file or a ``load_rules`` result (the rule baseline: ``rule`` is the
    id of the rule that answered, None and the text empty where none did), or any fitted
    ``System`` (``system(name).fit(...)``, ``load(folder)``), run through the one dialog
    loop: its best response at each turn, ``rule`` None (a ``rules`` system gives its
    rule ids, as the rule file does)."""
    from ..systems.interface import System, as_turns
    from ..systems.interface import predict as run_system
    from ..systems.rules.engine import Compiled, Prediction
    from ..systems.rules.engine import predict as run_rules
    from ..systems.rules.system import Rules

    bot_turns = as_turns(data, "data")
    if isinstance(system, Rules):
        if not hasattr(system, "compiled_"):
            system.fit()
        return run_rules(system.compiled_, bot_turns)
    if isinstance(system, System):
        return [Prediction(text, None) for text in run_system(system, bot_turns)]
    ruleset = system if not isinstance(system, (str, os.PathLike)) else load_rules(system)
    return run_rules(Compiled(ruleset), bot_turns)


def rules_report(rules: RuleSet | Path, data: Path, *, top: int | None = None, by_system: bool = False,
                 manifest: Path | None = None) -> dict[str, pandas.DataFrame]:
    """``dstc2conv rules report`` as DataFrames: ``{"rules": ..., "kinds": ...,
    "confusions": ...}``, the columns those of its CSV files, the largest rows first, the
    first ``top`` of each (None: all). ``by_system`` adds turns and accuracy per DSTC2
    dialog system to the rules and kinds tables; it needs the build's manifest (beside
    ``data``, or ``manifest``)."""
    from ..systems.rules.engine import Compiled
    from ..systems.rules.engine import predict as run
    from ..systems.rules.report import tables
    from .frames import report_frame

    if top is not None and top < 1:
        raise Dstc2ConvError(f"top={top}: give 1 or more, or None for every row")
    if manifest is not None and not by_system:
        raise Dstc2ConvError("manifest= is for by_system=True")
    ruleset = rules if not isinstance(rules, (str, os.PathLike)) else load_rules(rules)
    per_turn = None
    if by_system:
        _, bot_turns, systems = _read_with_systems(data, manifest)
        if systems is None:
            raise Dstc2ConvError("by_system needs the build's manifest.json beside the data file (listing it), "
                                 "or manifest=", os.fspath(data))
        per_turn = [systems[t.dialog] for t in bot_turns]
    else:
        bot_turns = turns(data)
    compiled = Compiled(ruleset)
    found = tables(run(compiled, bot_turns), bot_turns, compiled, top=top, systems=per_turn)
    return {table.name: report_frame(table) for table in found}


# ---------------------------------------------------------------- systems

def system(name: str, candidates: Sequence[str] | None = None, **settings) -> System:
    """A system by name, built with its settings as keywords and, for one that ranks
    candidates, ``candidates``; not fitted: ``system("tfidf", input="last").fit(train)``.
    ``name``: one of the registry's (``dstc2conv.systems.registry.NAMES``; ``dstc2conv
    table2 --help`` lists them), one an installed package registers (entry-point group
    ``dstc2conv.systems``), or ``module:Class`` (on ``sys.path`` or in the current folder)."""
    from ..systems.registry import build

    return build(name, None if candidates is None else tuple(candidates), **settings)


def rank(system: System, data: Path | Sequence[BotTurn], k: int = 1) -> list[tuple[str, ...]]:
    """Every bot turn's ``k`` best responses by a fitted ``system``, best first, through
    the one dialog loop (a new dialog resets the system; it is asked before it is shown
    the turn's gold and results). ``data``: a task-6 file, its dialogs or its ``turns``."""
    from ..systems.interface import as_turns, run

    if k < 1:
        raise Dstc2ConvError(f"k={k}: give 1 or more")
    return run(system, as_turns(data, "data"), k)


def table2(train: Path, dev: Path, test: Path, *, candidates: Path | None = None,
           systems: Sequence[str] | None = None, resamples: int = 1000, seed: int = 0,
           seeds: Sequence[int] = (0,)) -> Table2:
    """``dstc2conv table2``: every system (``systems``: their names; default all) fitted
    on ``train`` with ``dev``, scored on ``test`` beside the paper's figure, compared
    with the rules (the bootstrap's ``resamples`` and ``seed``); a system whose training
    draws random numbers is fitted once per seed of ``seeds`` (its figures: their mean,
    min and max). ``to_dict()`` is the command's JSON, ``frame()`` the rows as a pandas
    DataFrame, ``runs_frame()`` every training."""
    from ..systems.table2 import table2 as run_table2

    if isinstance(systems, str):
        raise TypeError("systems: give a list of names, e.g. ['rules', 'tfidf']")
    with naming(train, dev, test, candidates):
        result = run_table2(os.fspath(train), os.fspath(dev), os.fspath(test),
                            None if candidates is None else os.fspath(candidates), systems, resamples, seed, seeds)
    return _table2_result()(**{f.name: getattr(result, f.name) for f in dataclasses.fields(result)})


def whole_table(release: Path, *, systems: Sequence[str] | None = None, resamples: int = 1000, seed: int = 0,
                seeds: Sequence[int] = (0,)):
    """``dstc2conv table2 --release``: the paper's whole Table 2 on the published release
    (the archive or its unpacked folder): each task's systems (``systems``: names, or
    ``+name``/``-name`` changes to the paper's six columns; default those six) fitted once
    on its train file with its dev file and scored on its test and OOV test files.
    ``tables`` holds one table2 result a row (``T1`` ... ``T6``), ``to_dict()`` is the
    command's JSON, ``frame()`` a DataFrame indexed by row and system."""
    from ..systems.whole_table import WholeTable
    from ..systems.whole_table import whole_table as run_whole

    @dataclass(frozen=True)
    class WholeTableResult(WholeTable):
        """``whole_table``'s result; ``frame()`` its pandas table."""

        def frame(self) -> pandas.DataFrame:
            """One row a (row, system) pair (``api.frames.whole_frame``)."""
            from .frames import whole_frame

            return whole_frame(self)

    result = run_whole(os.fspath(release), systems, resamples, seed, seeds)
    return WholeTableResult(**{f.name: getattr(result, f.name) for f in dataclasses.fields(result)})


@functools.cache
def _table2_result() -> type:
    """``Table2Result``: ``systems.table2.Table2`` with its pandas tables (made when
    first asked for, so that importing the API does not import table2)."""
    from ..systems.table2 import Table2

    @dataclass(frozen=True)
    class Table2Result(Table2):
        """``table2``'s result; ``frame()`` and ``runs_frame()`` its pandas tables."""

        def frame(self) -> pandas.DataFrame:
            """The rows, one a system (``api.frames.table2_frame``)."""
            from .frames import table2_frame

            return table2_frame(self)

        def runs_frame(self) -> pandas.DataFrame:
            """Every training, one row a system and seed (``api.frames.runs_frame``)."""
            from .frames import runs_frame

            return runs_frame(self)

    Table2Result.__module__ = __name__
    return Table2Result


# ---------------------------------------------------------------- scoring

@dataclass(frozen=True)
class ScoreResult:
    """The score of predictions on a task-6 file, as ``dstc2conv score`` gives it: each
    metric's figures (``figures``; ``to_dict()`` is the command's JSON), accuracy by
    response kind and by dialog system (tables), and each turn with its prediction and
    its per-turn figures (``turns_table``)."""
    ref: str
    signature: str
    figures: dict                                # metric name -> its figures (evaluate.metrics)
    turns: tuple = field(repr=False)             # BotTurn, in file order
    predictions: tuple = field(repr=False)       # the predicted texts, one per turn
    rules: tuple | None = field(repr=False)      # the rule of each prediction, for the rule baseline's
    systems: tuple | None = field(repr=False)    # each dialog's DSTC2 system, when a manifest names them
    scored: Scored = field(repr=False)           # each metric's statistics per turn
    published: tuple | None = field(default=None, repr=False)   # (file name, split) of a published REF
    resamples: int = 1000                        # of the bootstrap over dialogs, for the 95% intervals (0: none)
    seed: int = 0

    @property
    def per_response(self) -> float:
        return self._accuracy()["per_response"]

    @property
    def per_dialog(self) -> float:
        return self._accuracy()["per_dialog"]

    @property
    def outcomes(self) -> list[bool]:
        """Whether each prediction is right (as ``match`` says)."""
        return self.scored.outcomes

    def _accuracy(self) -> dict:
        if "accuracy" not in self.figures:
            raise Dstc2ConvError("accuracy is not among the metrics scored: add it to metrics=", self.ref)
        return self.figures["accuracy"]

    def _by_system(self) -> dict | None:
        from ..evaluate.responses import by_system

        if self.systems is None:
            return None
        self._accuracy()
        return by_system(self.outcomes, self.turns, self.systems)

    def to_dict(self) -> dict:
        """What ``dstc2conv score PREDS REF --json`` prints."""
        from ..evaluate.responses import by_kind
        from ..evaluate.score_output import as_dict, parts

        systems = self._by_system() if "accuracy" in self.figures else None
        out = as_dict(self.figures, self.signature, None if systems is None else parts(systems))
        if "accuracy" in self.figures:
            out["by_kind"] = parts(by_kind(self.outcomes, self.turns))
        if self.published:
            from ..evaluate.published import as_dict as published_dict

            out.update(published_dict(self.published))
        if self.resamples:
            out["intervals"] = self._intervals().to_dict()
        return out

    def _intervals(self):
        from ..evaluate.intervals import bootstrap

        return bootstrap([self.scored], self.resamples, self.seed)[0]

    def intervals(self) -> pandas.DataFrame:
        """Each figure with its 95% interval by the bootstrap over dialogs (``resamples``
        and ``seed`` as ``score`` was given them), one row per figure, indexed by
        (metric, figure): ``value``, ``low``, ``high``."""
        from .frames import intervals_frame

        if not self.resamples:
            raise Dstc2ConvError("no intervals: score(..., bootstrap=0) was asked for none", self.ref)
        return intervals_frame(self.figures, self._intervals().figures)

    def by_kind(self) -> pandas.DataFrame:
        """Responses, correct ones and per-response accuracy per kind of gold response
        (indexed by kind, the kinds that occur in the registry's order)."""
        from ..evaluate.responses import by_kind
        from .frames import parts_frame

        self._accuracy()
        return parts_frame(by_kind(self.outcomes, self.turns), "kind")

    def by_system(self) -> pandas.DataFrame:
        """Accuracy per DSTC2 dialog system (indexed by system, in name order); an error
        when no manifest names the systems."""
        from .frames import parts_frame

        systems = self._by_system()
        if systems is None:
            raise Dstc2ConvError("no manifest names the dialog systems of the file: give score(..., manifest=) "
                                 "the build's manifest.json", self.ref)
        return parts_frame(systems, "system")

    def turns_table(self) -> pandas.DataFrame:
        """One row per bot turn: dialog, turn, line, system, kind, user, gold, prediction,
        rule, correct, then the per-turn columns of the other metrics scored (as
        ``dstc2conv score --turns`` writes them)."""
        from .frames import turns_frame

        columns: dict[str, list] = {"correct": list(self.outcomes)}
        for i in range(len(self.turns)):
            for name, value in self.scored.turn_columns(i).items():
                if name != "correct":
                    columns.setdefault(name, []).append(value)
        return turns_frame(self.turns, self.systems, self.predictions, self.rules, columns)


def score(predictions: Path | Sequence[str] | Sequence[Prediction], ref: Path, *,
          metrics: Sequence[str] | None = None, match: str = "strip", kb: Path | None = None,
          manifest: Path | None = None, bootstrap: int = 1000, seed: int = 0) -> ScoreResult:
    """``dstc2conv score PREDS REF``: ``predictions`` is a predictions file (one bot
    utterance a line), or the predictions themselves (texts, or ``predict``'s results,
    whose rules then show in ``turns_table``), one per bot turn of ``ref``, in order.

    ``metrics``: the names of the metrics to score (``dstc2conv score --list-metrics``;
    default: every one that text predictions allow, those needing the KB when there is
    one); ``match``: when a prediction is right (strip, lower or template); ``kb``: the
    KB file (default: the build's beside its manifest, else the published KB shipped with
    dstc2conv, else the KB file beside ``ref``); ``manifest``: the build's manifest.json,
    for each dialog's system (default: the one beside ``ref``, if it lists the file);
    ``bootstrap`` and ``seed``: the resamples of the dialogs for the 95% intervals
    (``intervals()``, and ``to_dict()``'s ``intervals``; 0: none), as ``--bootstrap`` and
    ``--seed``."""
    from ..evaluate import metrics as m
    from ..evaluate import responses as r
    from ..evaluate.entities import find_kb
    from ..evaluate.published import published
    from ..evaluate.sessions import read_sessions
    from ..files import sha256_file
    from ..systems.rules.engine import Prediction
    from ..task6.turns import read_file

    if isinstance(metrics, str):
        raise TypeError("metrics: give a list of metric names, e.g. ['accuracy', 'bleu']")
    ref = os.fspath(ref)
    dialogs, bot_turns = read_file(ref)
    rules = None
    if isinstance(predictions, (str, os.PathLike)):
        path = os.fspath(predictions)
        texts = r.read_predictions(path)
        r.check_count(path, texts, ref, bot_turns)
    else:
        given = list(predictions)
        if given and all(isinstance(p, Prediction) for p in given):
            texts, rules = tuple(p.text for p in given), tuple(p.rule for p in given)
        elif all(isinstance(p, str) for p in given):
            texts = tuple(given)
        else:
            raise TypeError("predictions: give a predictions file, or a list of strings, or predict()'s results")
        if len(texts) != len(bot_turns):
            raise Dstc2ConvError(f"{len(texts)} predictions for {len(bot_turns)} bot turns: give one prediction "
                                 "per bot turn, in order", ref)
    sessions = read_sessions(ref, len(dialogs), manifest)
    entity_kb = find_kb(kb, ref, sessions)
    names = m.choose(None if metrics is None else ",".join(metrics), "text", entity_kb is not None)
    scored = m.compute(m.Inputs(tuple(bot_turns), texts, "text", None, match, entity_kb), names)
    data_sha = sha256_file(ref)
    return ScoreResult(ref, m.signature(data_sha, [], scored.inputs, names), scored.figures,
                       tuple(bot_turns), texts, rules, None if sessions is None else sessions.systems, scored,
                       published(data_sha), bootstrap, seed)


def turns_table(data: Path, *, manifest: Path | None = None) -> pandas.DataFrame:
    """The bot turns of a task-6 file as a DataFrame, one row each: dialog, turn (both from
    1), line, system (None without a manifest), kind (of the gold response), user, gold.
    With predictions: ``score(...).turns_table()``."""
    from .frames import turns_frame

    _, bot_turns, systems = _read_with_systems(data, manifest)
    return turns_frame(bot_turns, systems)


def _read_with_systems(data: Path, manifest: Path | None):
    """The dialogs and bot turns of a task-6 file, and each dialog's DSTC2 system (None
    when no manifest names them)."""
    from ..evaluate.sessions import read_sessions
    from ..task6.turns import read_file

    dialogs, bot_turns = read_file(data)
    sessions = read_sessions(data, len(dialogs), manifest)
    return dialogs, bot_turns, None if sessions is None else sessions.systems
