"""The learned chooser over the rules' proposals: its gradients against finite
differences, a toy task it must learn, determinism, the model folder's round trip (the
same answers) and an old chooser's folder refused, delexicalised actions filled back, the
one loop never showing a gold early, and the commands on a small file."""
from __future__ import annotations

import json
import os

import pytest
from conftest import ONTOLOGY, TWO_ASKS_RULES, write_rule_files

np = pytest.importorskip("numpy")

from dstc2conv.cli import run  # noqa: E402
from dstc2conv.errors import Dstc2ConvError  # noqa: E402
from dstc2conv.systems.chooser.actions import Action, Delexer, available, fill  # noqa: E402
from dstc2conv.systems.chooser.choosing import Model  # noqa: E402
from dstc2conv.systems.chooser.encode import Vocabulary  # noqa: E402
from dstc2conv.systems.chooser.settings import Settings  # noqa: E402
from dstc2conv.systems.chooser.system import RulesLearned, training_views  # noqa: E402
from dstc2conv.systems.chooser.training import Batch, Shape, loss_and_grad, scores, train  # noqa: E402
from dstc2conv.systems.interface import predict  # noqa: E402
from dstc2conv.systems.interface import run as run_loop  # noqa: E402
from dstc2conv.systems.registry import load  # noqa: E402
from dstc2conv.task6.turns import read_turns  # noqa: E402


def _random_batch(rng, turns=6, features=7, actions=4, sources=3, column_features=5):
    lengths = rng.integers(1, 4, size=turns)
    ptr = np.r_[0, np.cumsum(lengths)]
    idx = np.concatenate([np.sort(rng.choice(features, size=n, replace=False)) for n in lengths])
    avail = rng.integers(0, 16, size=(turns, sources))
    extra = rng.integers(0, 3, size=turns)
    cf_t, cf_c, cf_f = [], [], []
    for t in range(turns):
        for col in range(actions + int(extra[t])):
            if rng.random() < 0.5:
                cf_t.append(t)
                cf_c.append(col)
                cf_f.append(int(rng.integers(column_features)))
    shape = Shape(rng.integers(0, sources, size=actions), np.zeros(actions, dtype=np.int64))  # all allowed
    gold = np.array([int(rng.integers(actions + int(extra[t]))) for t in range(turns)])
    gold[0] = -1                       # a turn whose gold is not among its columns: no loss
    a = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    return shape, Batch(a(ptr), a(idx), avail, a(extra), a(cf_t), a(cf_c), a(cf_f), a(gold))


def test_the_gradients_are_those_of_the_loss():
    rng = np.random.default_rng(3)
    shape, batch = _random_batch(rng)
    W = rng.normal(size=(7, 5))
    u = rng.normal(size=5)
    loss, dW, du = loss_and_grad(W, u, shape, batch, 0.1, 0.03)
    eps = 1e-6
    for params, grad in ((W, dW), (u, du)):
        numeric = np.zeros_like(params)
        for i in np.ndindex(params.shape):
            keep = params[i]
            params[i] = keep + eps
            up = loss_and_grad(W, u, shape, batch, 0.1, 0.03)[0]
            params[i] = keep - eps
            down = loss_and_grad(W, u, shape, batch, 0.1, 0.03)[0]
            params[i] = keep
            numeric[i] = (up - down) / (2 * eps)
        assert np.allclose(grad, numeric, atol=1e-6), np.abs(grad - numeric).max()
    assert loss > 0


def test_the_mask_keeps_a_column_out():
    rng = np.random.default_rng(0)
    shape, batch = _random_batch(rng)
    needs = np.array([0, 2, 0, 0])          # action 1 needs a field of its source
    shape = Shape(np.zeros(4, dtype=np.int64), needs)
    batch = Batch(batch.x_ptr, batch.x_idx, np.zeros_like(batch.avail), batch.extra, batch.cf_turn, batch.cf_col,
                  batch.cf_feat, batch.gold)
    Z = scores(np.ones((7, 5)), np.zeros(5), shape, batch)
    assert np.isneginf(Z[:, 1]).all() and np.isfinite(Z[:, 0]).all()


def _toy(turns=400, seed=1):
    """Feature k (of 3) on a turn means the gold is action k; feature 3 is noise; column
    feature 0 marks a column a 'rule' proposes, half the time the gold."""
    rng = np.random.default_rng(seed)
    ptr, idx, gold, cf_t, cf_c, cf_f = [0], [], [], [], [], []
    for t in range(turns):
        k = int(rng.integers(3))
        feats = sorted({0, 1 + k} | ({4} if rng.random() < 0.5 else set()))
        idx += feats
        ptr.append(len(idx))
        gold.append(k)
        cf_t.append(t)
        cf_c.append(k if rng.random() < 0.5 else int(rng.integers(3)))
        cf_f.append(0)
    a = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    batch = Batch(a(ptr), a(idx), np.ones((turns, 3), dtype=np.int64), np.zeros(turns, dtype=np.int64), a(cf_t),
                  a(cf_c), a(cf_f), a(gold))
    return Shape(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64)), batch


def test_a_toy_task_is_learned_and_training_is_deterministic():
    shape, batch = _toy()
    settings = Settings(l2=1e-4)
    W, u, history = train(shape, batch, 5, 1, settings)
    assert history[-1] < np.log(3) / 10        # from log(3) at zero weights
    test_shape, test = _toy(seed=2)
    assert (scores(W, u, test_shape, test).argmax(axis=1) == test.gold).all()
    W2, u2, _ = train(shape, batch, 5, 1, settings)
    assert W.tobytes() == W2.tobytes() and u.tobytes() == u2.tobytes()


def test_training_finds_the_minimum_of_the_convex_loss():
    """L-BFGS stops where the gradient vanishes: no step of any size along it lowers the
    loss, and a stronger penalty gives smaller weights."""
    shape, batch = _toy(turns=200)
    W, u, history = train(shape, batch, 5, 1, Settings(l2=1e-2, l2_columns=1e-2))
    loss, dW, du = loss_and_grad(W, u, shape, batch, 1e-2, 1e-2)
    assert np.abs(dW).max() < 1e-4 and np.abs(du).max() < 1e-4
    assert loss == pytest.approx(history[-1])
    assert all(later <= earlier + 1e-12 for earlier, later in zip(history, history[1:]))
    W_strong, _, _ = train(shape, batch, 5, 1, Settings(l2=1e-1, l2_columns=1e-2))
    assert np.sum(W_strong ** 2) < np.sum(W ** 2)
    W_short, _, short = train(shape, batch, 5, 1, Settings(iterations=2, l2=1e-2, l2_columns=1e-2))
    assert len(short) == 2 and short[-1] > history[-1]


def test_lbfgs_finds_the_minimum_that_scipy_finds():
    """The trainer's own L-BFGS (float32 history, to halve its memory) on a convex but
    ill-conditioned problem: a regularised logistic regression on 300 random points."""
    from scipy.optimize import minimize

    from dstc2conv.systems.chooser.training import lbfgs
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 8)) * np.array([1, 2, 5, 10, 20, 1, 1, 0.1])
    y = (X @ rng.normal(size=8) + rng.normal(size=300) > 0).astype(float)

    def objective(w):
        z = X @ w
        loss = np.mean(np.logaddexp(0, z) - y * z) + 0.5e-3 * w @ w
        return loss, X.T @ (1 / (1 + np.exp(-z)) - y) / len(y) + 1e-3 * w

    ours = lbfgs(objective, np.zeros(8), 200)
    theirs = minimize(objective, np.zeros(8), jac=True, method="L-BFGS-B", options={"gtol": 1e-10}).x
    assert objective(ours)[0] == pytest.approx(objective(theirs)[0], abs=1e-7)
    assert np.allclose(ours, theirs, atol=5e-3)       # (a flat minimum: the loss agrees to 1e-7)


def _views(tmp_path):
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    return training_views(Compiled(load_rules(rules)), read_turns(data))


def test_a_model_folder_round_trips_byte_for_byte_with_the_same_answers(tmp_path):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    turns = read_turns(data)
    system = RulesLearned(rules, iterations=20).fit(turns)
    system.save(tmp_path / "m", {"train": "data.txt"})
    back = load(tmp_path / "m")
    assert type(back) is RulesLearned and back.get_params() == system.get_params()
    assert back.about == {"train": "data.txt"}
    assert run_loop(back, turns, 3) == run_loop(system, turns, 3)
    first = {p.name: p.read_bytes() for p in (tmp_path / "m").iterdir()}
    assert sorted(first) == ["model.json", "weights.npz"]
    back.save(tmp_path / "m2", {"train": "data.txt"})
    assert {p.name: p.read_bytes() for p in (tmp_path / "m2").iterdir()} == first
    again = RulesLearned(rules, iterations=20).fit(turns)     # the same data and settings: the same bytes
    again.save(tmp_path / "m3", {"train": "data.txt"})
    assert {p.name: p.read_bytes() for p in (tmp_path / "m3").iterdir()} == first


def test_an_old_choosers_folder_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "chooser.json").write_text(json.dumps({"format": "dstc2conv-chooser", "version": 2}))
    (folder / "weights.npz").write_bytes(b"")
    with pytest.raises(Dstc2ConvError, match="a chooser of an earlier dstc2conv, which this version does not "
                                             "read: train it again"):
        load(folder)


def test_weights_that_do_not_fit_the_vocabularies_are_refused(tmp_path):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    RulesLearned(rules, iterations=2).fit(data).save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    meta["facts"]["features"] = meta["facts"]["features"][:1]
    (tmp_path / "m" / "model.json").write_text(json.dumps(meta))
    with pytest.raises(Dstc2ConvError, match="weights W are float64 of shape"):
        load(tmp_path / "m")


class _Poisoned:
    """Bot turns whose gold may be read only once the system has ranked the turn."""

    def __init__(self, turns, ranked):
        self.turns, self.ranked = turns, ranked

    def __iter__(self):
        for i, turn in enumerate(self.turns):
            yield _PoisonedTurn(turn, i, self.ranked)


class _PoisonedTurn:
    def __init__(self, turn, i, ranked):
        self._turn, self._i, self._ranked = turn, i, ranked
        self.dialog, self.index, self.line, self.user, self.context = (turn.dialog, turn.index, turn.line, turn.user,
                                                                       turn.context)

    @property
    def gold(self):
        assert len(self._ranked) > self._i, f"the gold of turn {self._i} read before it was ranked"
        return self._turn.gold


def test_the_loop_never_shows_the_chooser_a_gold_before_it_answers(tmp_path, monkeypatch):
    from dstc2conv.systems import interface

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    turns = read_turns(data)
    system = RulesLearned(rules, iterations=20).fit(turns)
    ranked: list = []
    rank = system.rank

    def noted(user, k):
        ranked.append(user)
        return rank(user, k)

    monkeypatch.setattr(system, "rank", noted)
    monkeypatch.setattr(interface, "as_turns", lambda data, what="": list(data))
    assert predict(system, _Poisoned(turns, ranked)) == predict(RulesLearned(rules, iterations=20).fit(turns), turns)
    assert len(ranked) == len(turns)


# ---------------------------------------------------------------- actions

class _State:
    def __init__(self, **kw):
        self.food = self.area = self.price = None
        self.current = self.upcoming = None
        self.results = {}
        self.__dict__.update(kw)


class _Compiled:
    class ontology:
        values = {"food": ("thai", "indian"), "area": ("north", "south"), "price": ("cheap", "moderate", "expensive")}

    spaced = {"the_big_house": "the big house"}

    @staticmethod
    def _underscored(text):
        return text.replace("the big house", "the_big_house")


def test_a_turn_is_made_a_template_and_filled_back():
    results = {"bangkok": {"R_cuisine": "thai", "R_location": "north", "R_price": "cheap"},
               "the_big_house": {"R_cuisine": "indian", "R_location": "south", "R_price": "cheap"}}
    state = _State(food="thai", area="north", price="dontcare", current="bangkok", results=results,
                   upcoming="the_big_house")
    delex = Delexer(_Compiled)
    offer = delex("bangkok is a nice place in the north of town serving tasty thai food", state)
    assert offer == Action("current", "{name} is a nice place in the {area} of town serving tasty {food} food")
    phone = delex("The phone number of the big house is the_big_house_phone", state)
    assert phone == Action("upcoming", "The phone number of {name} is {name}_phone")
    assert fill(_Compiled.spaced, phone, state) == "The phone number of the big house is the_big_house_phone"
    # two prices named: a list of choices, not the state's price
    ask = delex("Would you like something in the cheap , moderate , or expensive price range?", _State(price="cheap"))
    assert ask.template == "Would you like something in the cheap , moderate , or expensive price range?"
    call = delex("api_call thai R_location cheap", _State(food="thai", area="north", price="cheap"))
    assert call == Action("", "api_call {food} R_location {price}")
    assert fill({}, call, _State(food="indian", price="moderate")) == "api_call indian R_location moderate"
    assert fill({}, call, _State(food="indian")) is None           # no price: masked
    assert available(_State(food="indian")) == (1 | 2, 0, 0)


# ---------------------------------------------------------------- the commands

RULES = TWO_ASKS_RULES

# the rules ask for the food first; the dialogs ask for the area first unless the user says "food"
DIALOG = "1 <SILENCE>\tWelcome .\n2 {first}\t{reply}\n3 {second}\t{reply2}\n4 bye\tyou are welcome\n"
DATA = "\n".join(
    DIALOG.format(first=first, reply=reply, second=second, reply2=reply2)
    for first, reply, second, reply2 in [
        ("hi", "Which area?", "north", "Which food?"),
        ("food please", "Which food?", "thai", "Which area?"),
        ("hello", "Which area?", "south", "Which food?"),
        ("food", "Which food?", "thai food", "Which area?"),
    ] * 3)


@pytest.fixture
def small(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    model = str(tmp_path / "model")

    def cli(*args):
        code = run(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, err = cli("rules", "learn", "--rules", rules, "--train", data, "--dev", data, "--out", model,
                         "--quiet")
    assert code == 0, err
    return rules, data, model, cli, out


def test_learn_writes_the_model_and_beats_the_rules_it_learned_from(small):
    rules, data, model, cli, out = small
    lines = out.splitlines()
    assert lines[:2] == [os.path.join(model, "weights.npz"), os.path.join(model, "model.json")]
    assert lines[2] == "dev data.txt: rules 87.50%, rules+learned 100.00% per response (48 turns)"


def test_score_predict_report_and_explain_with_the_chooser(small):
    rules, data, model, cli, _ = small
    code, out, err = cli("rules", "score", "--rules", rules, "--data", data, "--chooser", model, "--no-history",
                         "--flips", "1")
    assert code == 0, err
    assert out.splitlines()[0] == "per-response accuracy  100.00%  (48/48)"
    assert "+learned:" in out.splitlines()[2]
    assert "change                 +12.50% per response (6 turns now right, 0 now wrong), +50.00% per dialog" in out
    assert "  ask-food -> ask-area: 6 now right, 0 now wrong" in out
    code, predicted, _ = cli("rules", "predict", "--rules", rules, "--data", data, "--chooser", model, "--out", "-")
    assert code == 0
    gold = [line.split("\t")[1] for line in DATA.splitlines() if "\t" in line]
    assert predicted.splitlines() == gold
    code, out, _ = cli("rules", "report", "--rules", rules, "--data", data, "--chooser", model)
    assert code == 0
    assert out.startswith("## overrides\n\nrule      fired  overridden  won  lost  neither  net\n"
                          "ask-food     18           6    6     0        0    6\n")
    code, out, _ = cli("rules", "explain", "--rules", rules, "--data", data, "--chooser", model, "--dialog", "1",
                       "--turn", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[:5] == ["dialog 1 turn 2 (line 2)", "user     hi", "gold     Which area?",
                         "rules    Which food?  [ask-food]", "chooser  Which area?  [ask-area]"]
    assert lines[5:8] == ["proposals (rule: response):", "  ask-food: Which food?", "  ask-area: Which area?"]
    assert "features that decided (weight for the best, for the runner-up):" in lines


def test_the_system_answers_as_predict_does(small):
    rules, data, model, cli, _ = small
    _, predicted, _ = cli("rules", "predict", "--rules", rules, "--data", data, "--chooser", model, "--out", "-")
    system = load(model)
    assert system.name == "rules+learned"
    assert predict(system, read_turns(data)) == predicted.splitlines()
    fitted = RulesLearned(rules).fit(read_turns(data))
    assert predict(fitted, read_turns(data)) == predicted.splitlines()


def test_bad_input_is_one_line_and_exit_2(small, tmp_path):
    rules, data, model, cli, _ = small
    code, out, err = cli("rules", "explain", "--rules", rules, "--data", data, "--chooser", model, "--dialog", "13",
                         "--turn", "1")
    assert (code, out) == (2, "")
    assert err == f"dstc2conv: error: {data}: --dialog 13: the file has dialogs 1 to 12\n"
    code, _, err = cli("rules", "score", "--rules", rules, "--data", data, "--chooser", str(tmp_path / "none"))
    assert code == 2 and err.count("\n") == 1 and "no model folder there" in err
    test_file = tmp_path / "dialog-babi-task6-dstc2-tst.txt"
    test_file.write_text(DATA)
    code, _, err = cli("rules", "learn", "--rules", rules, "--train", str(test_file), "--out", str(tmp_path / "m2"))
    assert code == 2 and "test split" in err and not (tmp_path / "m2").exists()
    code, _, err = cli("rules", "learn", "--rules", rules, "--train", data, "--out", data)
    assert code == 2 and "exists and is not a model folder" in err


def test_the_engine_proposes_every_applicable_rule_first_what_predict_gives(tmp_path):
    from dstc2conv.systems.rules.engine import Compiled, candidates
    from dstc2conv.systems.rules.engine import predict as rules_predict
    from dstc2conv.systems.rules.ruleset import load_rules

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    ruleset, turns = load_rules(rules), read_turns(data)
    found = candidates(Compiled(ruleset), turns)
    assert [next(iter(f.items())) for f in found] == [(p.rule, p.text) for p in rules_predict(Compiled(ruleset), turns)]
    # dialog 1, turn 2 ("hi"): both questions apply; turn 3 ("north"): only the food's
    assert found[1] == {"ask-food": "Which food?", "ask-area": "Which area?"}
    assert found[2] == {"ask-food": "Which food?"}
    # the chooser's views see the same proposals, in the same order
    assert [[(p.rule, p.text) for p in v.proposals] for v in _views(tmp_path)] == [list(f.items()) for f in found]


def test_hidden_proposals_become_extra_columns_and_their_actions_are_masked(tmp_path):
    from dstc2conv.systems.chooser.encode import build, encode

    vs = _views(tmp_path)
    vocab = build(vs)
    plain, _ = encode(vs, vocab)
    hidden, extras = encode(vs, vocab, hide=1.0)
    A = len(vocab.actions)
    assert (plain.extra == 0).all() and len(plain.off_turn) == 0
    assert [len(e) for e in extras] == [len(v.proposals) for v in vs]
    # every gold is a proposal here: now an extra column, its action's column masked
    assert (hidden.gold >= A).all()
    Z = scores(np.zeros((len(vocab.features), A + 1)), np.zeros(len(vocab.columns)), vocab.shape, hidden)
    assert np.isneginf(Z[hidden.off_turn, hidden.off_col]).all()
    assert np.isneginf(Z[np.arange(len(vs)), plain.gold]).all()


def test_a_turn_sees_the_dialog_so_far(tmp_path):
    """A turn's features hold the template of the bot turn before the previous one and how
    many times each kind of response was said before it; a new dialog starts afresh."""
    vs = _views(tmp_path)

    def history(view):
        return [f for f in view.features if f.startswith(("prev2:", "sofar:"))]

    # dialog 1: Welcome . / Which area? / Which food? / you are welcome; the first three
    # are of no kind of the DSTC2 wording (other)
    assert [history(v) for v in vs[:4]] == [
        ["prev2:-"],
        ["prev2:-", "sofar:other:1"],
        ["prev2:|Welcome .", "sofar:other:2"],
        ["prev2:|Which area?", "sofar:other:3"],
    ]
    assert history(vs[4]) == ["prev2:-"]


def test_a_turn_scored_alone_gets_the_scores_of_the_batch_bit_for_bit(tmp_path):
    """Prediction scores one turn without a batch: the same numbers as ``scores`` gives,
    the mask and the extra columns (proposals no template of train holds) included."""
    from dstc2conv.systems.chooser.choosing import turn_scores
    from dstc2conv.systems.chooser.encode import build, encode

    vs = _views(tmp_path)
    full = build(vs, min_count=1)
    vocab = Vocabulary(full.actions[:1], full.features, full.columns)    # one template: the other proposals are extra columns
    rng = np.random.default_rng(1)
    model = Model(vocab, rng.normal(size=(len(vocab.features), len(vocab.actions) + 1)),
                  rng.normal(size=len(vocab.columns)), {})
    extra_seen = 0
    for view in vs:
        batch, extras = encode([view], vocab)
        z, extra = turn_scores(model, view)
        assert extra == extras[0]
        assert z.tobytes() == scores(model.W, model.u, vocab.shape, batch)[0].tobytes()
        extra_seen += len(extra)
    assert extra_seen > 0


def test_lbfgs_stops_where_the_loss_is_not_a_number():
    """A step into a region where the objective is NaN is taken back, and the search stops
    (it looped for ever: a NaN compares false with everything)."""
    from dstc2conv.systems.chooser.training import lbfgs

    def objective(x):
        if (x > 1).any():
            return float("nan"), np.full_like(x, np.nan)
        return 0.5 * x @ x - 10 * x.sum(), x - 10

    x = lbfgs(objective, np.zeros(3), 50)
    assert np.isfinite(x).all() and (x <= 1).all()


SCORED = """per-response accuracy  100.00%  (48/48)
per-dialog accuracy    100.00%  (12/12)
signature              rules:RULES+learned:WEIGHTS|data:DATA|match:strip|version:VERSION
against                rules: the same rules without the chooser, rules:RULES
change                 +12.50% per response (6 turns now right, 0 now wrong), +50.00% per dialog
  kind other           +16.67%  (6 now right, 0 now wrong, of 36)
flips by rule, before -> now:
  ask-food -> ask-area: 6 now right, 0 now wrong
      | 1 <SILENCE> | Welcome .
    now right: dialog 1 line 2  user: 'hi'  gold: 'Which area?'  was: 'Which food?'  now: 'Which area?'
      | 1 <SILENCE> | Welcome .
    now right: dialog 3 line 12  user: 'hello'  gold: 'Which area?'  was: 'Which food?'  now: 'Which area?'
    ... and 4 more (--flips N shows N a group)
"""


def test_score_with_the_chooser_prints_what_it_printed_with_its_own_loop(small):
    """The chooser's answers through the one loop, attributed to the first rule proposing
    them: the score, the change against the rules and the flips as before."""
    import re

    from dstc2conv.files import sha256_file
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.version import __version__

    rules, data, model, cli, _ = small
    code, out, err = cli("rules", "score", "--rules", rules, "--data", data, "--chooser", model, "--no-history",
                         "--flips", "2", "--context", "1")
    assert (code, err) == (0, f"dstc2conv: rules {rules} with the chooser {model}\n")
    expected = SCORED.replace("RULES", load_rules(rules).sha256[:12]).replace("DATA", sha256_file(data)[:12])
    expected = expected.replace("WEIGHTS", sha256_file(os.path.join(model, "weights.npz"))[:12])
    assert out == expected.replace("VERSION", __version__)
    assert re.search(r"\+learned:[0-9a-f]{12}\|", out)


# two managers the rules' state cannot tell apart: one says what the rules say at every
# turn, the other asks for the area at the second turn and again at the fifth; the turns
# between are the same in both, so at the fifth only the rules' record in the dialog differs
RECORD = "\n".join(
    f"1 <SILENCE>\tWelcome .\n2 hi\t{first}\n3 ok\tWhich food?\n4 go on\tWhich food?\n5 well\t{fifth}\n"
    "6 bye\tyou are welcome\n"
    for first, fifth in [("Which food?", "Which food?"), ("Which area?", "Which area?")] * 6)


def test_the_rules_record_in_the_dialog_decides_between_two_managers(tmp_path):
    """A turn sees how many of the dialog's earlier bot turns the rules' choice got wrong
    (its feature ``missed:N``, and ``top&missed:N`` on the rules' choice): with nothing else
    to tell the two managers apart, the chooser answers as the rules where they have been
    right so far in the dialog, and otherwise as the manager that left them."""
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, RECORD)
    turns = read_turns(data)
    vs = training_views(Compiled(load_rules(rules)), turns)
    fifth = [v for v, t in zip(vs, turns) if t.user == "well"]
    assert [v.missed for v in fifth] == [0, 1] * 6
    followed, left = (set(v.features) for v in fifth[:2])
    assert followed ^ left == {"missed:0", "missed:1"}
    assert [v.missed for v in vs[:6]] == [0] * 6 and [v.missed for v in vs[6:12]] == [0, 0, 1, 1, 1, 2]
    answers = predict(RulesLearned(rules).fit(turns), turns)
    assert [a for a, t in zip(answers, turns) if t.user == "well"] == ["Which food?", "Which area?"] * 6


def test_rules_of_other_slots_are_refused_by_name(tmp_path):
    """The chooser reads task 6's slots: rules of the bAbI tasks' (cuisine, location,
    number, price) are refused in one line naming the rule file, not a traceback."""
    from importlib import resources

    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.systems.chooser.system import RulesLearned
    from dstc2conv.task6.turns import read_turns

    data = tmp_path / "d.txt"
    data.write_text("1 hi\thello what can i help you with today\n2 can you book a table\ti'm on it\n\n")
    babi = str(resources.files("dstc2conv.rulefiles") / "babi.yaml")
    with pytest.raises(Dstc2ConvError, match="task 6's slots .*cuisine, location, number, price") as raised:
        RulesLearned(babi).fit(read_turns(str(data)))
    assert raised.value.path == babi
