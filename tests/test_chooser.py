"""The learned chooser over the rules' proposals: its gradients against finite
differences, a toy task it must learn, determinism, the model folder's round trip and
bad folders, delexicalised actions filled back, and the commands on a small file."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ONTOLOGY, TWO_ASKS_RULES, write_rule_files

np = pytest.importorskip("numpy")

from dstc2conv.cli import run  # noqa: E402
from dstc2conv.errors import Dstc2ConvError  # noqa: E402
from dstc2conv.systems.chooser import store  # noqa: E402
from dstc2conv.systems.chooser.actions import Action, Delexer, available, fill  # noqa: E402
from dstc2conv.systems.chooser.encode import Vocabulary  # noqa: E402
from dstc2conv.systems.chooser.learned import Model  # noqa: E402
from dstc2conv.systems.chooser.model import Batch, Shape, loss_and_grad, scores, train  # noqa: E402
from dstc2conv.systems.chooser.settings import Settings  # noqa: E402


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

    from dstc2conv.systems.chooser.model import lbfgs
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


def _model() -> Model:
    vocab = Vocabulary((Action("", "Which food?"), Action("current", "{name} is good")), ("bias", "w:thai"),
                       ("prop", "top"))
    rng = np.random.default_rng(0)
    return Model(vocab, rng.normal(size=(2, 3)), rng.normal(size=2), Settings(iterations=2), {"turns": 3})


def test_a_model_folder_round_trips_byte_for_byte(tmp_path):
    model = _model()
    store.save(model, str(tmp_path / "m"))
    back = store.load(str(tmp_path / "m"))
    assert back.vocab == model.vocab and back.settings == model.settings
    assert back.W.tobytes() == model.W.tobytes() and back.u.tobytes() == model.u.tobytes()
    first = {p.name: p.read_bytes() for p in (tmp_path / "m").iterdir()}
    store.save(back, str(tmp_path / "m2"))
    assert {p.name: p.read_bytes() for p in (tmp_path / "m2").iterdir()} == first
    assert sorted(first) == ["chooser.json", "weights.npz"]


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "chooser.json").unlink(), "no chooser.json"),
    (lambda d: (d / "weights.npz").unlink(), "no weights.npz"),
    (lambda d: (d / "chooser.json").write_text("{"), "not JSON"),
    (lambda d: _edit(d, version=99), "format version 99"),
    (lambda d: _edit(d, format="other"), "not a chooser's settings"),
    (lambda d: _edit(d, actions=["nowhere|x"]), "missing or bad entry"),
    (lambda d: _edit(d, features=["bias"]), "do not fit"),
    (lambda d: (d / "weights.npz").write_bytes(b"PK\x03\x04 not a zip"), "not those chooser.json names"),
])
def test_a_bad_model_folder_is_one_clear_error(tmp_path, damage, message):
    folder = tmp_path / "m"
    store.save(_model(), str(folder))
    damage(folder)
    with pytest.raises(Dstc2ConvError, match=message):
        store.load(str(folder))


def test_weights_that_would_need_pickle_are_refused(tmp_path):
    folder = tmp_path / "m"
    store.save(_model(), str(folder))
    import io
    buffer = io.BytesIO()
    np.savez(buffer, W=np.array([object()], dtype=object), u=np.zeros(2))
    (folder / "weights.npz").write_bytes(buffer.getvalue())
    _edit(folder, weights_sha256=__import__("hashlib").sha256(buffer.getvalue()).hexdigest())
    with pytest.raises(Dstc2ConvError, match="not a chooser's weights"):
        store.load(str(folder))


def _edit(folder: Path, **changes) -> None:
    path = folder / "chooser.json"
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta))


def test_a_missing_folder_is_named():
    with pytest.raises(Dstc2ConvError, match="no such model folder"):
        store.load("/nonexistent/model")


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
    assert lines[:2] == [os.path.join(model, "weights.npz"), os.path.join(model, "chooser.json")]
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
    from dstc2conv.systems.chooser.system import RulesLearned
    from dstc2conv.systems.interface import predict
    from dstc2conv.task6.turns import read_turns

    rules, data, model, cli, _ = small
    _, predicted, _ = cli("rules", "predict", "--rules", rules, "--data", data, "--chooser", model, "--out", "-")
    system = RulesLearned(rules, model)
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
    assert code == 2 and err.count("\n") == 1 and "no such model folder" in err
    test_file = tmp_path / "dialog-babi-task6-dstc2-tst.txt"
    test_file.write_text(DATA)
    code, _, err = cli("rules", "learn", "--rules", rules, "--train", str(test_file), "--out", str(tmp_path / "m2"))
    assert code == 2 and "test split" in err and not (tmp_path / "m2").exists()
    code, _, err = cli("rules", "learn", "--rules", rules, "--train", data, "--out", data)
    assert code == 2 and "not a folder" in err


def test_the_engine_proposes_every_applicable_rule_first_what_predict_gives(tmp_path):
    from dstc2conv.systems.rules.engine import Compiled, predict, proposals
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_turns

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    ruleset, turns = load_rules(rules), read_turns(data)
    found = [dict(f) for _, _, _, f in proposals(Compiled(ruleset), turns)]
    assert [next(iter(f.items())) for f in found] == [(p.rule, p.text) for p in predict(Compiled(ruleset), turns)]
    # dialog 1, turn 2 ("hi"): both questions apply; turn 3 ("north"): only the food's
    assert found[1] == {"ask-food": "Which food?", "ask-area": "Which area?"}
    assert found[2] == {"ask-food": "Which food?"}


def test_hidden_proposals_become_extra_columns_and_their_actions_are_masked(tmp_path):
    from dstc2conv.systems.chooser.encode import build, encode
    from dstc2conv.systems.chooser.features import views
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_turns

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    vs = views(Compiled(load_rules(rules)), read_turns(data))
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
    from dstc2conv.systems.chooser.features import views
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_turns

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    vs = views(Compiled(load_rules(rules)), read_turns(data))

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
    from dstc2conv.systems.chooser.encode import build, encode
    from dstc2conv.systems.chooser.features import views
    from dstc2conv.systems.chooser.learned import turn_scores
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_turns

    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)
    vs = views(Compiled(load_rules(rules)), read_turns(data))
    full = build(vs, min_count=1)
    vocab = Vocabulary(full.actions[:1], full.features, full.columns)    # one template: the other proposals are extra columns
    rng = np.random.default_rng(1)
    model = Model(vocab, rng.normal(size=(len(vocab.features), len(vocab.actions) + 1)),
                  rng.normal(size=len(vocab.columns)), Settings(), {})
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
    from dstc2conv.systems.chooser.model import lbfgs

    def objective(x):
        if (x > 1).any():
            return float("nan"), np.full_like(x, np.nan)
        return 0.5 * x @ x - 10 * x.sum(), x - 10

    x = lbfgs(objective, np.zeros(3), 50)
    assert np.isfinite(x).all() and (x <= 1).all()
