"""The base of the neural systems: a System that learns its weights with ``fit``, keeps
the dialog's history as it is shown it, and ranks a candidate set. A subclass gives its
parameters, how a batch of examples is encoded, its loss and gradients, and its scores.

What it learned is the contract's ``state``: the vocabulary, the candidates it ranks,
the dev curve and the candidates it was trained among as facts, the weights as arrays,
whose shapes follow from the facts and the settings (``expected_arrays``), so a model
folder that claims others is refused before its weights are read."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

import numpy as np

from ...errors import DataRefused, Dstc2ConvError
from ...limits import MB
from ...reporter import note
from ...task6.candidates import distinct
from ...task6.turns import BotTurn
from ..interface import System
from ..ranking import best
from .text import PAD, Example, History, Vocabulary, distinct_golds, examples, turn_texts
from .training import Epoch, Schedule, fit

MAX_BYTES = 512 * MB     # what a neural system's arrays may take while it trains or answers


class Learned(System):
    """A neural system. Settings are the constructor's keyword arguments, named in
    ``SETTINGS`` (name -> default) and kept as attributes of those names; ``candidates``:
    the responses it ranks once fitted (None: the distinct bot utterances of the files
    it was fitted on). It is trained among those and the train and dev files' bot
    utterances: the softmax's (or the negatives') set."""

    name = ""
    SETTINGS: dict = {}
    # a number setting's bounds (low, high), both included; a number not named: 0 to 10**6
    BOUNDS: dict = {"dimension": (1, 4096), "epochs": (1, 10_000), "batch": (1, 100_000), "seed": (0, 2**63 - 1)}
    CHOICES: dict = {"optimizer": ("adam", "sgd")}      # a text setting's allowed values
    GRID: dict = {}                                      # what a grid search tries (docs/learned.md)

    def __init__(self, candidates: Sequence[str] | None = None, **settings):
        unknown = sorted(set(settings) - set(self.SETTINGS))
        if unknown:
            raise Dstc2ConvError(f"{type(self).__name__}: no setting {', '.join(unknown)} (its settings: "
                                 f"{', '.join(self.SETTINGS)})")
        for key, value in {**self.SETTINGS, **self.checked(settings)}.items():
            setattr(self, key, value)
        self.given = None if candidates is None else self.checked_candidates(candidates)
        self.check_footprint(1, len(self.given or ()) or 1, settings_alone=True)
        self.vocab: Vocabulary | None = None
        self.params: dict[str, np.ndarray] = {}
        self.curve: list[Epoch] = []
        self.trained_with: dict = {}
        self.candidates: tuple[str, ...] = ()
        self.history = History()

    @property
    def settings(self) -> dict:
        """The settings, name -> value."""
        return {key: getattr(self, key) for key in self.SETTINGS}

    def get_params(self) -> dict:
        return {"candidates": self.given, **self.settings}

    @classmethod
    def checked(cls, settings: dict) -> dict:
        """``settings``, each of its default's type and within its bounds (or choices); a
        Dstc2ConvError naming the first that is not."""
        for key, value in settings.items():
            default = cls.SETTINGS[key]
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int):
                ok = number and isinstance(value, int)
            elif isinstance(default, float):
                ok = number and (isinstance(value, int) or math.isfinite(value))
            else:
                ok = isinstance(value, type(default))
            if not ok:
                raise Dstc2ConvError(f"setting {key}: {value!r} is not a {type(default).__name__}")
            if number:
                low, high = cls.BOUNDS.get(key, (0, 10**6))
                if not low <= value <= high:
                    raise Dstc2ConvError(f"setting {key}: {value!r} is not from {low} to {high}")
            if key in cls.CHOICES and value not in cls.CHOICES[key]:
                raise Dstc2ConvError(f"setting {key}: {value!r} is not one of {', '.join(cls.CHOICES[key])}")
        return settings

    @staticmethod
    def checked_candidates(candidates: Sequence[str]) -> tuple[str, ...]:
        """The candidates as a tuple of texts; a Dstc2ConvError for none or a non-text."""
        if isinstance(candidates, str) or not isinstance(candidates, Iterable):
            raise Dstc2ConvError(f"candidates: give a list of responses, not a {type(candidates).__name__}")
        candidates = tuple(candidates)
        if not candidates:
            raise Dstc2ConvError("no candidates: give one response or more")
        for c in candidates:
            if not isinstance(c, str):
                raise Dstc2ConvError(f"a candidate is a {type(c).__name__}, not a text: {c!r}")
        return candidates

    # -- what it may allocate
    def footprint(self, words: int, candidates: int) -> int:
        """About the bytes its arrays take, for a vocabulary of ``words`` and ``candidates``
        responses: the candidates' bags of words, the weights with the optimizer's two
        moments, the best epoch's copy and the gradients, and what a minibatch needs."""
        weights = sum(int(np.prod(shape)) for shape in self.param_shapes(words).values())
        return 4 * (candidates * words + 5 * weights) + self.working_bytes(words)

    def working_bytes(self, words: int) -> int:
        """The bytes of a minibatch's own arrays beyond the weights' (a subclass's)."""
        return 0

    def check_footprint(self, words: int, candidates: int, settings_alone: bool = False) -> None:
        """A Dstc2ConvError if the arrays would take more than ``MAX_BYTES``."""
        need = self.footprint(words, candidates)
        if need > MAX_BYTES:
            what = "these settings" if settings_alone else f"{words} words, {candidates} candidates and these settings"
            refused = Dstc2ConvError if settings_alone else DataRefused     # the data's: its files named by the caller
            raise refused(f"{self.name}: {what} would take about {need // MB} MB, more than the {MAX_BYTES // MB} MB a "
                          "neural system may take: fewer distinct words or responses, or a smaller dimension, batch "
                          "or negatives")

    # -- what a subclass gives
    def extra_words(self) -> list[str]:
        return []

    def param_shapes(self, words: int) -> dict[str, tuple[int, ...]]:
        """Each parameter's shape, for these settings and a vocabulary of ``words``."""
        raise NotImplementedError

    def init_params(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def prepare(self, candidates: Sequence[str]) -> None:
        """Encode the candidate set (``self.candidates`` is set)."""

    def encode(self, exs: Sequence[Example]) -> object:
        """The examples in the form ``minibatch`` takes them."""
        raise NotImplementedError

    def minibatch(self, encoded, indices: np.ndarray, gold: np.ndarray | None) -> object:
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
            cache[table] = self.embed_candidates(self.params[table])
        return cache[table]

    def embed_candidates(self, table: np.ndarray) -> np.ndarray:
        """The candidates' bags times ``table`` (V, d): (C, d). With the setting ``sparse``,
        by a sparse product (the same up to float rounding; many times faster with many
        candidates of few words each)."""
        if getattr(self, "sparse", False):
            return np.asarray(self._sparse_bags()[0] @ table)
        return self.cand_bags.astype(table.dtype, copy=False) @ table

    def candidates_grad(self, grad: np.ndarray) -> np.ndarray:
        """The candidates' bags, transposed, times ``grad`` (C, d): the gradient (V, d) of
        the table ``embed_candidates`` was given."""
        if getattr(self, "sparse", False):
            return np.asarray(self._sparse_bags()[1] @ grad)
        return self.cand_bags.T.astype(grad.dtype, copy=False) @ grad

    def _sparse_bags(self):
        found = self.__dict__.get("_sparse")
        if found is None or found[2] is not self.cand_bags:
            from scipy.sparse import csr_array

            found = self._sparse = (csr_array(self.cand_bags), csr_array(self.cand_bags.T), self.cand_bags)
        return found

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
        rng = np.random.default_rng(self.seed)
        vocab = Vocabulary.build(turn_texts(train), self.extra_words())
        pool = distinct([*distinct_golds(train, dev), *(self.given or ())])
        self.check_footprint(len(vocab), len(pool))
        self.vocab = vocab
        self.use_candidates(pool)
        self.trained_with = {"candidates": len(self.candidates), "given": len(self.given or ())}
        index = {c.strip(): i for i, c in enumerate(self.candidates)}
        self.params = self.init_params(rng)
        self.after_step()
        train_exs, dev_exs = examples(train), examples(dev)
        encoded = self.encode(train_exs)
        gold = np.array([index[e.gold.strip()] for e in train_exs])
        dev_encoded = self.encode(dev_exs) if dev_exs else None
        dev_gold = np.array([index[e.gold.strip()] for e in dev_exs])
        schedule = Schedule(**{f.name: getattr(self, f.name) for f in dataclasses.fields(Schedule)})

        def step(indices):
            return self.loss_grads(self.minibatch(encoded, indices, gold[indices]), rng)

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
            scores = self.scores(self.minibatch(encoded, indices, None))
            right += sum(best(row, 1)[0] == g for row, g in zip(scores, gold[indices]))
        return right / max(len(gold), 1)

    def reset(self) -> None:
        self.history = History()

    def preface(self, context: tuple[str, ...]) -> None:
        self.history.lead(context)

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.history.add(user, gold, context)

    def fitted(self) -> bool:
        return self.vocab is not None

    def _scores(self, user: str) -> np.ndarray:
        if self.vocab is None:
            raise Dstc2ConvError(f"{self.name}: not fitted: call fit(train, dev) first (or load a model)")
        example = Example(tuple(self.history.slots), user, "")
        return self.scores(self.minibatch(self.encode([example]), np.arange(1), None))[0]

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        return tuple(self.candidates[i] for i in best(self._scores(user), k))

    def use_candidates(self, candidates: Sequence[str]) -> None:
        """Rank these responses from now on (a fitted system; its words are fixed)."""
        if self.vocab is None:
            raise Dstc2ConvError(f"{self.name}: not fitted: its candidates are set once it has a vocabulary")
        checked = self.checked_candidates(candidates)
        self.check_footprint(len(self.vocab), len(checked))
        self.candidates = checked
        self.__dict__.pop("_embedded", None)
        self.prepare(self.candidates)

    # -- what it learned
    def state(self) -> tuple[dict, dict]:
        if not self.fitted():
            raise Dstc2ConvError(f"{self.name}: not fitted: nothing to save (call fit(train, dev) first)")
        facts = {"vocabulary": list(self.vocab.words), "candidates": list(self.candidates),
                 "dev_curve": [e.as_dict() for e in self.curve], "trained_with": self.trained_with}
        return facts, dict(self.params)

    def expected_arrays(self, facts: dict) -> dict:
        words = facts.get("vocabulary")
        if not isinstance(words, list) or not words or words[0] != PAD or len(set(words)) != len(words) \
                or not all(isinstance(w, str) for w in words):
            raise ValueError("its vocabulary is not a list of distinct words that starts with the padding word")
        candidates = facts.get("candidates")
        self.check_footprint(len(words), len(candidates) if isinstance(candidates, list) else 1)
        return {name: (shape, "float32") for name, shape in self.param_shapes(len(words)).items()}

    def restore(self, facts: dict, arrays: dict) -> None:
        self.vocab = Vocabulary(tuple(facts["vocabulary"]))
        self.curve = [Epoch(**e) for e in facts["dev_curve"]]
        self.trained_with = dict(facts["trained_with"])
        self.params = dict(arrays)
        self.use_candidates(facts["candidates"])
