"""The dialog loop: reset per dialog, rank before the gold is shown, observe after."""
from __future__ import annotations

import re

import pytest

from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems.interface import System, predict, run
from dstc2conv.task6.turns import BotTurn


def _turn(dialog, index, user, gold, context=()):
    return BotTurn(dialog, index, 0, user, gold, tuple(context))


TURNS = [_turn(0, 0, "hello", "hi"), _turn(0, 1, "thai food", "api_call thai", ["r1 R_cuisine thai"]),
         _turn(1, 0, "bye", "you are welcome")]


class Recorder(System):
    """Answers with the last gold it saw, and records the calls it got."""

    name = "recorder"

    def __init__(self):
        self.calls = []
        self.last = "<none>"

    def reset(self):
        self.calls.append("reset")
        self.last = "<none>"

    def rank(self, user, k):
        self.calls.append(f"rank {user}")
        return (self.last, "spare")[:k]

    def observe(self, user, gold, context):
        self.calls.append(f"observe {gold} {list(context)}")
        self.last = gold


def test_the_loop_asks_before_it_shows_and_resets_per_dialog():
    system = Recorder()
    assert predict(system, TURNS) == ["<none>", "hi", "<none>"]
    assert system.calls == ["reset", "rank hello", "observe hi []",
                            "rank thai food", "observe api_call thai ['r1 R_cuisine thai']",
                            "reset", "rank bye", "observe you are welcome []"]


def test_run_gives_k_best_and_reports_progress():
    seen = []
    assert run(Recorder(), TURNS, 2, progress=lambda done, total: seen.append((done, total)))[1] == ("hi", "spare")
    assert seen == [(2, 3), (3, 3)]


def test_a_system_that_gives_nothing_is_refused():
    class Mute(System):
        def rank(self, user, k):
            return ()

    with pytest.raises(Dstc2ConvError, match="Mute: no response at turn 1 of dialog 1"):
        run(Mute(), TURNS)


@pytest.mark.parametrize("name", ["tfidf", "nn", "embeddings", "memn2n", "rules+learned", "hcn"])
def test_a_system_not_fitted_is_one_error(name):
    from dstc2conv import Dstc2ConvError
    from dstc2conv.systems import registry

    with pytest.raises(Dstc2ConvError, match=f"^{re.escape(name)}: not fitted"):
        run(registry.build(name, ("hi", "api_call thai")), TURNS)


def test_the_rules_need_no_fit():
    from dstc2conv.systems import registry

    assert len(predict(registry.build("rules"), TURNS)) == 3
