"""The metrics registry: every figure dstc2conv reports on predictions, one entry each.

An entry names the metric, what it needs (``text``: one predicted utterance per bot
turn; ``ranking``: ranked candidates per bot turn; ``dstc6``: a DSTC6 result file),
whether it needs the KB, its exact definition and whose papers report it (the docs
table is generated from these), the element it adds to the signature, and its
computation in two steps, as sacrebleu does: statistics per turn, then the figures from
any list of them. ``dstc2conv score`` and ``ir`` score here (``rules score`` prints its
accuracy with the same printer, ``score_output``); the per-turn output reads the same
statistics.

Ranked and DSTC6 inputs allow the text metrics too: their first candidate is the
turn's prediction.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..errors import Dstc2ConvError
from ..task6.turns import BotTurn
from ..task6.vocabulary import SLOTS as VOCABULARY_SLOTS
from ..version import __version__
from . import MATCHES
from . import bleu as _bleu
from . import entities as _entities
from .response_kinds import kind_of

INPUTS = {"text": ("text",), "ranking": ("text", "ranking"), "dstc6": ("text", "dstc6")}
SLOTS = tuple(slot.word for slot in VOCABULARY_SLOTS)   # cuisine, location, price
NAMED = ("offer", "phone", "address", "post_code")   # the kinds of gold response task success checks


@dataclass(frozen=True)
class Inputs:
    """What is scored: the turns of REF, a prediction per turn, and, for ranked input,
    the candidates of each turn best first (``ranks``: the gold's rank, or None)."""
    turns: tuple[BotTurn, ...]
    predictions: tuple[str, ...]
    kind: str = "text"                            # text, ranking or dstc6
    ranks: tuple[int | None, ...] | None = None
    match: str = "strip"
    kb: _entities.EntityKB | None = None

    @cached_property
    def lookups(self) -> list[_entities.Lookup]:
        if self.kb is None:
            raise Dstc2ConvError("this metric needs the KB: give --kb FILE")
        return [_entities.Lookup(self.kb, seen) for seen in _entities.seen_entities(self.turns)]

    @cached_property
    def mem2seq_counts(self) -> list[tuple[int, int, int, bool]]:
        if self.kb is None:
            raise Dstc2ConvError("this metric needs the KB: give --kb FILE")
        local = _entities.mem2seq_local_words(self.turns)
        return [_entities.mem2seq_counts(p, t.gold, self.kb.listed, words)
                for p, t, words in zip(self.predictions, self.turns, local)]

    @cached_property
    def entity_counts(self) -> list[tuple[int, int, int, bool]]:
        return [_entities.counts(p, t.gold, lk) for p, t, lk in zip(self.predictions, self.turns, self.lookups)]


@dataclass(frozen=True)
class Metric:
    name: str
    needs: str                     # text, ranking, dstc6
    definition: str
    reported_by: str
    turn: Callable[[Inputs], list]                   # one statistic per turn
    total: Callable[[Sequence, Sequence[BotTurn]], dict]   # the figures from statistics and their turns
    headline: str                  # the key of the figure a table shows
    options: str = ""              # its options, named in the signature as name:options
    columns: Callable[[object], dict] = lambda stat: {}   # its per-turn output columns
    kb: bool = False               # needs the KB
    percent: bool = True           # the headline is a share, shown as a percentage


# ---------------------------------------------------------------- accuracy

def correct(prediction: str, gold: str, match: str = "strip", lookup: _entities.Lookup | None = None) -> bool:
    if match == "strip":
        return prediction.strip() == gold.strip()
    if match == "lower":
        return prediction.strip().lower() == gold.strip().lower()
    return _entities.template(prediction, lookup) == _entities.template(gold, lookup)


def normalisation_only(inputs: Inputs, outcomes: Sequence[bool]) -> int:
    """The turns whose prediction is wrong only by its Unicode normalisation: right once
    prediction and gold are both in NFC. (They count as wrong: the match compares code
    points, as the reference scorers do.)"""
    import unicodedata

    lookups = inputs.lookups if inputs.match == "template" else [None] * len(outcomes)
    return sum(1 for ok, p, t, lookup in zip(outcomes, inputs.predictions, inputs.turns, lookups)
               if not ok and not (p.isascii() and t.gold.isascii())
               and correct(unicodedata.normalize("NFC", p), unicodedata.normalize("NFC", t.gold), inputs.match,
                           lookup))


def _accuracy_turns(inputs: Inputs) -> list[bool]:
    if inputs.match == "template":
        return [correct(p, t.gold, "template", lk) for p, t, lk in zip(inputs.predictions, inputs.turns, inputs.lookups)]
    return [correct(p, t.gold, inputs.match) for p, t in zip(inputs.predictions, inputs.turns)]


def accuracy(stats: Sequence[bool], turns: Sequence[BotTurn]) -> dict:
    """Accuracy's figures from whether each turn is right: per response, right turns /
    turns; per dialog, dialogs whose every turn is right / dialogs; and the counts."""
    dialogs: dict[int, bool] = {}
    for ok, turn in zip(stats, turns):
        dialogs[turn.dialog] = dialogs.get(turn.dialog, True) and ok
    n, right, d, d_right = len(stats), sum(stats), len(dialogs), sum(dialogs.values())
    return {"per_response": right / n if n else 0.0, "per_dialog": d_right / d if d else 0.0,
            "responses": n, "correct": right, "dialogs": d, "dialogs_correct": d_right}


# ---------------------------------------------------------------- BLEU

def _bleu_turns(inputs: Inputs) -> list[_bleu.BleuStats]:
    return [_bleu.turn_stats(p, t.gold) for p, t in zip(inputs.predictions, inputs.turns)]


def _bleu_total(stats, turns) -> dict:
    return _bleu.corpus_bleu(stats).to_dict()


def _bleu_columns(stat: _bleu.BleuStats) -> dict:
    return {"bleu_matched": list(stat.matched), "bleu_total": list(stat.total)}


# ---------------------------------------------------------------- entities

def _entity_turns(inputs: Inputs) -> list[tuple[int, int, int, bool]]:
    return inputs.entity_counts


def _entity_columns(stat) -> dict:
    tp, fp, fn, _ = stat
    return {"entity_tp": tp, "entity_fp": fp, "entity_fn": fn}


def _f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _mem2seq_turns(inputs: Inputs) -> list[tuple[int, int, int, bool]]:
    return inputs.mem2seq_counts


def _mem2seq_columns(stat) -> dict:
    tp, fp, fn, _ = stat
    return {"mem2seq_tp": tp, "mem2seq_fp": fp, "mem2seq_fn": fn}


def _mem2seq(stats, turns) -> dict:
    """The mean of the per-response F1, and the paper-era "F1" (sklearn's micro F1 over
    labels that are all 1, one per gold entity, 1 when found), which is the recall."""
    scored = [_f1(tp, fp, fn)[2] for tp, fp, fn, has in stats if has]
    tp, _, fn = _sums(stats)
    return {"f1": sum(scored) / len(scored) if scored else 0.0, "responses": len(scored),
            "recall": tp / (tp + fn) if tp + fn else 0.0, "tp": tp, "fn": fn}


def _sums(stats) -> tuple[int, int, int]:
    return tuple(sum(s[i] for s in stats) for i in range(3))


def _micro(stats, turns) -> dict:
    tp, fp, fn = _sums(stats)
    precision, recall, f1 = _f1(tp, fp, fn)
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def _recall(stats, turns) -> dict:
    tp, _, fn = _sums(stats)
    return {"recall": tp / (tp + fn) if tp + fn else 0.0, "tp": tp, "fn": fn}


# ---------------------------------------------------------------- api_call and task success

def _api_parts(text: str) -> tuple[str, ...] | None:
    words = text.split()
    return tuple(words[1:]) if len(words) == 4 and words[0] == "api_call" else None


def _api_turns(inputs: Inputs) -> list[tuple[bool, bool, bool, bool] | None]:
    out = []
    for p, t in zip(inputs.predictions, inputs.turns):
        gold = _api_parts(t.gold) if kind_of(t.gold) == "api_call" else None
        if gold is None:
            out.append(None)
            continue
        pred = _api_parts(p) or (None, None, None)
        out.append((p.strip() == t.gold.strip(), *(a == b for a, b in zip(pred, gold))))
    return out


def _api_total(stats, turns) -> dict:
    kept = [s for s in stats if s is not None]
    n = len(kept)
    out = {"accuracy": sum(s[0] for s in kept) / n if n else 0.0, "turns": n, "correct": sum(s[0] for s in kept)}
    for i, slot in enumerate(SLOTS, 1):
        out[slot] = sum(s[i] for s in kept) / n if n else 0.0
    return out


def _api_columns(stat) -> dict:
    if stat is None:
        return {"api_call_correct": None, **{f"api_call_{s}": None for s in SLOTS}}
    return {"api_call_correct": stat[0], **{f"api_call_{s}": ok for s, ok in zip(SLOTS, stat[1:])}}


def _success_turns(inputs: Inputs) -> list[bool | None]:
    """Per turn: None when task success does not check it, else whether it is right."""
    out = []
    for p, t, lookup in zip(inputs.predictions, inputs.turns, inputs.lookups):
        kind = kind_of(t.gold)
        if kind == "api_call":
            out.append(p.strip() == t.gold.strip())
            continue
        named = _entities.mention(t.gold, lookup) if kind in NAMED else None
        out.append(None if named is None else _entities.mention(p, lookup) == named)
    return out


def _success_total(stats, turns) -> dict:
    dialogs: dict[int, bool] = {}
    for ok, turn in zip(stats, turns):
        if ok is not None:
            dialogs[turn.dialog] = dialogs.get(turn.dialog, True) and ok
    n = len(dialogs)
    right = sum(dialogs.values())
    return {"success": right / n if n else 0.0, "dialogs": n, "dialogs_successful": right}


# ---------------------------------------------------------------- rankings

def _rank_turns(inputs: Inputs) -> list[int | None]:
    return list(inputs.ranks)


def _hits(k: int):
    def total(stats, turns) -> dict:
        right = sum(1 for r in stats if r is not None and r <= k)
        return {"hits": right / len(stats) if stats else 0.0, "right": right, "turns": len(stats)}
    return total


def _mrr(stats, turns) -> dict:
    return {"mrr": sum(1 / r for r in stats if r) / len(stats) if stats else 0.0, "turns": len(stats)}


def _precision_at(k: int):
    def total(stats, turns) -> dict:
        right = sum(1 for r in stats if r is not None and r <= k)
        return {"precision": right / len(stats) if stats else 0.0, "right": right, "samples": len(stats)}
    return total


def _rank_columns(stat) -> dict:
    return {"gold_rank": stat}


# ---------------------------------------------------------------- the registry

_ENTITY = ("Entities as defined on the evaluation page: KB names and attribute values (placeholders "
           "included, ratings excluded) and the names and values of the dialog's result lines so far; "
           "tokens split at whitespace. ")

METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("accuracy", "text",
           "Per response: the share of bot turns whose prediction equals the gold, compared as --match says "
           "(strip: stripped of surrounding whitespace; lower: also lowercased; template: both delexicalised, "
           "every entity token replaced by its slot). Per dialog: the share of dialogs whose every bot turn "
           "is right.",
           "Bordes & Weston 2017 (Table 2, both); MemN2N, QRN and HCN papers; DeepPavlov (lower); "
           "HCN re-implementations (template); Mem2Seq (per response)",
           _accuracy_turns, accuracy, "per_response",
           columns=lambda ok: {"correct": ok}),
    Metric("bleu", "text",
           "Corpus BLEU-4 as `multi-bleu.perl -lc`: lowercased whitespace tokens, one reference per turn, "
           "clipped n-gram matches and n-gram counts summed over the corpus, geometric mean of the four "
           "precisions, brevity penalty exp(1 - r/c) when c < r; 0 when any precision is 0. On 0..100.",
           "copy-seq2seq (Eric & Manning 2017), Mem2Seq (Madotto et al. 2018), GLMP, BossNet and their successors",
           _bleu_turns, _bleu_total, "bleu", options="lc,tok=space,order=4,nrefs=1",
           columns=_bleu_columns, percent=False),
    Metric("entity_f1_mem2seq", "text",
           "As Mem2Seq's code computes it (compute_prf and its task-6 loader, HLTCHKUST/Mem2Seq at 4224ccf). "
           "The gold entities of a response: its whitespace tokens that are names or values of the KB file's "
           "lines, duplicates kept. Each found among the prediction's tokens is a TP, else an FN; each distinct "
           "predicted token that is a KB name or value, or a local word of the dialog, and not a gold entity is "
           "an FP. The local words: of each result line of the whole dialog (later lines included, as its "
           "loader shares the list), the value, or the name on a rating line, and `result` of `api_call no "
           "result`. F1 per response whose gold holds an entity (0 when TP = 0), the mean over them. Also "
           "the summed recall TP / (TP + FN): the figure its paper-era code printed as \"F1\" (sklearn's micro "
           "F1 over labels that are all 1, which is recall).",
           "Mem2Seq (Madotto et al. 2018; its later code, and the recall of its first), GLMP and successors",
           _mem2seq_turns, _mem2seq, "f1", columns=_mem2seq_columns, kb=True),
    Metric("entity_micro", "text",
           _ENTITY + "For each turn: TP = the gold's distinct entities found in the prediction, FN = those "
           "not found, FP = the prediction's distinct entity tokens not in the gold. Precision, recall and F1 "
           "of TP, FP and FN summed over every turn, turns whose gold holds no entity included.",
           "micro-averaged entity F1 of later re-implementations",
           _entity_turns, _micro, "f1", columns=_entity_columns, kb=True),
    Metric("entity_recall", "text",
           _ENTITY + "TP / (TP + FN) (as for entity_micro), summed over every turn.",
           "BossNet (Raghu et al. 2019: its 'micro F1', which is recall)",
           _entity_turns, _recall, "recall", columns=_entity_columns, kb=True),
    Metric("api_call", "text",
           "Over the turns whose gold is `api_call <cuisine> <location> <price>`: the share predicted exactly "
           "(stripped), and per slot the share whose prediction is an api_call of four words with that "
           "slot's word right.",
           "dialog-state work on DSTC2 (the api_call is the tracked goal)",
           _api_turns, _api_total, "accuracy", columns=_api_columns),
    Metric("task_success", "text",
           "Per dialog: every api_call turn predicted exactly, and every turn whose gold offers a restaurant "
           "or gives its phone, address or post code names the same restaurant and the same kind of "
           "information (offer, R_phone, R_address, R_post_code), whatever the other words. The share of "
           "the dialogs with at least one such turn.",
           "goal-oriented dialog work in general; this definition is dstc2conv's",
           _success_turns, _success_total, "success",
           columns=lambda ok: {"task_turn_right": ok}, kb=True),
    *(Metric(f"hits@{k}", "ranking",
             f"The share of bot turns whose gold is among the first {k} ranked candidates (compared stripped; "
             "a gold absent from the ranking is a miss).",
             "ParlAI (hits@1, hits@10); hits@1 is the ranking papers' per-response accuracy",
             _rank_turns, _hits(k), "hits", columns=_rank_columns) for k in (1, 2, 5, 10)),
    Metric("mrr", "ranking",
           "The mean over bot turns of 1 / the gold's rank (0 when the gold is not ranked).",
           "ParlAI; DSTC7 track 1",
           _rank_turns, _mrr, "mrr", columns=_rank_columns, percent=False),
    *(Metric(f"p@{k}", "dstc6",
             f"DSTC6 track 1: the share of samples whose answer the result ranks within the top {k} of the "
             "sample's candidates.",
             "DSTC6 track 1, end-to-end goal-oriented dialog (its scorer)",
             _rank_turns, _precision_at(k), "precision", columns=_rank_columns) for k in (1, 2, 5)),
)}
NAMES = tuple(METRICS)


def allowed(kind: str, has_kb: bool) -> tuple[str, ...]:
    """Every metric an input of this kind allows, in registry order (those needing the KB
    only with one)."""
    return tuple(m.name for m in METRICS.values() if m.needs in INPUTS[kind] and (has_kb or not m.kb))


def choose(names: str | None, kinds: str | Sequence[str], has_kb: bool) -> tuple[str, ...]:
    """The metrics ``--metrics`` names (comma-separated), or every one the inputs allow
    (``kinds``: the kind of each system's input; a metric one of them allows is kept);
    in registry order."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    if names is None:
        return tuple(n for n in NAMES if any(n in allowed(k, has_kb) for k in kinds))
    out = []
    for name in (n.strip() for n in names.split(",")):
        metric = METRICS.get(name)
        if metric is None:
            close = difflib.get_close_matches(name, NAMES, n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(close)}?)" if close else f" (known: {', '.join(NAMES)})"
            raise Dstc2ConvError(f"--metrics: no metric {name!r}{hint}")
        if not any(metric.needs in INPUTS[k] for k in kinds):
            raise Dstc2ConvError(f"--metrics: {name} needs {metric.needs} input, these predictions are "
                                 f"{' and '.join(sorted(set(kinds)))}")
        if metric.kb and not has_kb:
            raise Dstc2ConvError(f"--metrics: {name} needs the KB: give --kb FILE")
        if name not in out:
            out.append(name)
    return tuple(n for n in NAMES if n in out)


def applicable(names: Sequence[str], kind: str) -> tuple[str, ...]:
    """Those of ``names`` an input of this kind allows."""
    return tuple(n for n in names if METRICS[n].needs in INPUTS[kind])


@dataclass(frozen=True)
class Scored:
    """The per-turn statistics of each chosen metric, and their figures over all turns."""
    inputs: Inputs
    names: tuple[str, ...]
    stats: dict = field(repr=False)
    figures: dict

    @property
    def outcomes(self) -> list[bool]:
        """Per-turn accuracy (as the chosen match says), for the paired comparison."""
        return self.stats["accuracy"] if "accuracy" in self.stats else _accuracy_turns(self.inputs)

    def turn_columns(self, i: int) -> dict:
        out: dict = {}
        for name in self.names:
            out.update(METRICS[name].columns(self.stats[name][i]))
        return out


def compute(inputs: Inputs, names: Sequence[str]) -> Scored:
    if inputs.match not in MATCHES:
        raise Dstc2ConvError(f"--match {inputs.match}: give one of {', '.join(MATCHES)}")
    if inputs.match == "template" and inputs.kb is None:
        raise Dstc2ConvError("--match template needs the KB: give --kb FILE")
    stats = {n: METRICS[n].turn(inputs) for n in names}
    figures = {n: METRICS[n].total(stats[n], inputs.turns) for n in names}
    return Scored(inputs, tuple(names), stats, figures)


def signature(data_sha: str, parts: Sequence[str], inputs: Inputs, names: Sequence[str]) -> str:
    """What made the predictions (``parts``), the data, ``match:<mode>`` (what counts as
    right), every other metric with its options in registry order, the KB's SHA-256
    prefix when a metric or the match uses it, and the version."""
    elements = [f"match:{inputs.match}"]
    for name in names:
        metric = METRICS[name]
        if name != "accuracy":
            elements.append(f"{name}:{metric.options}" if metric.options else name)
    if inputs.kb is not None and (inputs.match == "template" or any(METRICS[n].kb for n in names)):
        elements.append(f"kb:{inputs.kb.sha256[:12]}")
    return "|".join([*parts, f"data:{data_sha[:12]}", *elements, f"version:{__version__}"])


def docs_table() -> str:
    """The markdown table of the registry (docs/evaluation.md holds it, a test checks it)."""
    lines = ["| metric | input | definition | reported by |", "|---|---|---|---|"]
    for m in METRICS.values():
        needs = m.needs + (" + KB" if m.kb else "")
        lines.append(f"| `{m.name}` | {needs} | {m.definition} | {m.reported_by} |")
    return "\n".join(lines)


def text_table() -> str:
    """The registry as plain text, for ``score --list-metrics``."""
    out = []
    for m in METRICS.values():
        out.append(f"{m.name}  ({m.needs}{' + KB' if m.kb else ''})")
        out.append(f"  {m.definition}")
        out.append(f"  reported by: {m.reported_by}")
    return "\n".join(out)
