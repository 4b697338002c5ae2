"""The base of the learned systems: a System that learns its weights with ``fit``, keeps
the dialog's history as it is shown it, ranks a candidate set, and saves to and loads from
a model folder. A subclass gives its parameters, how a batch of examples is encoded,
its loss and gradients, and its scores."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from ...errors import Dstc2ConvError
from ...reporter import note
from ...task6.candidates import distinct
from ...task6.turns import BotTurn
from ..interface import System
from . import folder as model_folder
from .text import Example, History, Vocabulary, distinct_golds, examples, turn_texts
from .training import Epoch, Schedule, fit, ranking


class Learned(System):
    """A learned system. Settings are the constructor's keyword arguments, named in
    ``SETTINGS`` (name -> default); ``candidates``: the responses it ranks once fitted
    (default: the distinct bot utterances of the files it was fitted on); it learns to
    rank those and the train and dev files' bot utterances."""

    name = ""
    kind = ""                 # the model folder's "system"
    SETTINGS: dict = {}
    # a number setting's bounds (low, high), both included; a number not named: 0 to 10**6
    BOUNDS: dict = {"dimension": (1, 4096), "epochs": (1, 10_000), "batch": (1, 100_000), "seed": (0, 2**63 - 1)}

    def __init__(self, candidates: Sequence[str] | None = None, **settings):
        unknown = sorted(set(settings) - set(self.SETTINGS))
        if unknown:
            raise TypeError(f"{type(self).__name__}: unknown settings {', '.join(unknown)}")
        self.settings = {**self.SETTINGS, **self.checked(settings)}
        self.given = tuple(candidates) if candidates is not None else None
        self.vocab: Vocabulary | None = None
        self.params: dict[str, np.ndarray] = {}
        self.curve: list[Epoch] = []
        self.trained_on: dict = {}
        self.candidates: tuple[str, ...] = ()
        self.history = History()

    @classmethod
    def checked(cls, settings: dict) -> dict:
        """``settings``, each of its default's type and within its bounds; a
        Dstc2ConvError naming the first that is not."""
        for key, value in settings.items():
            default = cls.SETTINGS[key]
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int):
                ok = number and isinstance(value, int)
            elif isinstance(default, float):
                ok = number and math.isfinite(value)
            else:
                ok = isinstance(value, type(default))
            if not ok:
                raise Dstc2ConvError(f"setting {key}: {value!r} is not a {type(default).__name__}")
            if number:
                low, high = cls.BOUNDS.get(key, (0, 10**6))
                if not low <= value <= high:
                    raise Dstc2ConvError(f"setting {key}: {value!r} is not from {low} to {high}")
        return settings

    # -- what a subclass gives
    def extra_words(self) -> list[str]:
        return []

    @classmethod
    def param_shapes(cls, settings: dict, words: int) -> dict[str, tuple[int, ...]]:
        """Each parameter's shape, for these settings and a vocabulary of ``words``."""
        raise NotImplementedError

    def init_params(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def prepare(self, candidates: Sequence[str]) -> None:
        """Encode the candidate set (``self.candidates`` is set)."""

    def encode(self, exs: Sequence[Example]) -> object:
        """The examples in the form ``batch`` takes them."""
        raise NotImplementedError

    def batch(self, encoded, indices: np.ndarray, gold: np.ndarray | None) -> object:
        raise NotImplementedError

    def loss_grads(self, batch, rng: np.random.Generator) -> tuple[float, dict[str, np.ndarray]]:
        raise NotImplementedError

    def scores(self, batch) -> np.ndarray:
        """(examples, candidates) scores."""
        raise NotImplementedError

    def candidate_table(self, table: str) -> np.ndarray:
        """The candidates embedded with the weights ``table``, kept until the weights or
        the candidates change."""
        cache = self.__dict__.setdefault("_embedded", {})
        if table not in cache:
            cache[table] = self.cand_bags @ self.params[table]
        return cache[table]

    def after_step(self) -> None:
        """Called after each update (to keep the padding rows zero)."""
        self.__dict__.pop("_embedded", None)
        for name in self.params:
            if self.params[name].ndim == 2 and self.params[name].shape[0] == len(self.vocab):
                self.params[name][0] = 0

    # -- the System interface
    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> Learned:
        if not train:
            raise Dstc2ConvError("no training turns")
        dev = list(dev) if dev else []
        s = self.settings
        rng = np.random.default_rng(s["seed"])
        self.vocab = Vocabulary.build(turn_texts(train), self.extra_words())
        golds = distinct_golds(train, dev)
        self.use_candidates(distinct([*golds, *(self.given or ())]))
        index = {c.strip(): i for i, c in enumerate(self.candidates)}
        self.params = self.init_params(rng)
        self.after_step()
        train_exs = examples(train)
        encoded = self.encode(train_exs)
        gold = np.array([index[e.gold.strip()] for e in train_exs])
        dev_exs = examples(dev)
        dev_encoded = self.encode(dev_exs) if dev_exs else None
        dev_gold = np.array([index[e.gold.strip()] for e in dev_exs])
        schedule = Schedule(**{f.name: s[f.name] for f in dataclasses.fields(Schedule)})

        def step(indices):
            return self.loss_grads(self.batch(encoded, indices, gold[indices]), rng)

        def dev_accuracy():
            return None if dev_encoded is None else self.accuracy(dev_encoded, dev_gold)

        note(f"{self.name}: {len(train_exs)} training turns, {len(dev_exs)} dev turns, {len(self.vocab)} words, "
             f"{len(self.candidates)} candidates")
        self.params, self.curve = fit(self.params, len(train_exs), step, dev_accuracy, schedule, rng,
                                      f"{self.name}: ", self.after_step)
        if self.given is not None:      # the responses asked for, and only those, are ranked
            self.use_candidates(self.given)
        else:
            self.after_step()
        return self

    def accuracy(self, encoded, gold: np.ndarray, size: int = 256) -> float:
        right = 0
        for at in range(0, len(gold), size):
            indices = np.arange(at, min(at + size, len(gold)))
            best = self.scores(self.batch(encoded, indices, None)).argmax(axis=1)
            right += int((best == gold[indices]).sum())
        return right / max(len(gold), 1)

    def reset(self) -> None:
        self.history = History()

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.history.add(user, gold, context)

    def fitted(self) -> bool:
        return self.vocab is not None

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        if self.vocab is None:
            raise Dstc2ConvError(f"{self.name}: not trained (fit or load it first)")
        example = Example(tuple(self.history.slots), user, "")
        scores = self.scores(self.batch(self.encode([example]), np.arange(1), None))[0]
        return tuple(self.candidates[i] for i in ranking(scores, k))

    def use_candidates(self, candidates: Sequence[str]) -> None:
        """Rank these responses from now on."""
        candidates = tuple(candidates)
        if not candidates:
            raise Dstc2ConvError("no candidates")
        self.candidates = candidates
        self.__dict__.pop("_embedded", None)
        self.prepare(candidates)

    # -- the model folder
    def save(self, folder: str) -> None:
        meta = {"system": self.kind, "settings": self.settings, "vocabulary": list(self.vocab.words),
                "candidates": list(self.candidates), "dev_curve": [e.as_dict() for e in self.curve],
                "trained_on": self.trained_on}
        model_folder.save(folder, meta, self.params)

    @classmethod
    def load(cls, folder: str) -> Learned:
        def shapes(meta: dict) -> dict[str, tuple[int, ...]]:
            settings, words = meta.get("settings"), meta.get("vocabulary")
            if not isinstance(settings, dict) or not isinstance(words, list) or not words \
                    or not all(isinstance(w, str) for w in words) or len(set(words)) != len(words):
                raise Dstc2ConvError("a damaged model: its settings or vocabulary", folder)
            settings = {k: v for k, v in settings.items() if k in cls.SETTINGS}
            try:
                settings = {**cls.SETTINGS, **cls.checked(settings)}
            except Dstc2ConvError as exc:
                raise Dstc2ConvError(f"a damaged model: {exc}", folder) from None
            return cls.param_shapes(settings, len(words))

        meta, weights = model_folder.load(folder, cls.kind, shapes)
        try:
            system = cls(**{k: v for k, v in meta["settings"].items() if k in cls.SETTINGS})
            system.vocab = Vocabulary(tuple(meta["vocabulary"]))
            system.curve = [Epoch(**e) for e in meta.get("dev_curve", [])]
            system.trained_on = meta.get("trained_on", {})
            system.params = dict(weights)
            system.__dict__.pop("_embedded", None)
            system.use_candidates(meta["candidates"])
        except (KeyError, TypeError, ValueError) as exc:
            raise Dstc2ConvError(f"a damaged model: {exc}", folder) from None
        return system
