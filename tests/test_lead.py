"""A dialog's context lines before its first exchange (bAbI tasks 3 and 4 open with the
KB facts of their restaurants) reach every system: the learned ones' training examples
and memories, TF-IDF's conversation."""
from __future__ import annotations

from dstc2conv.systems.interface import run
from dstc2conv.systems.ir.tfidf import TfIdfMatch
from dstc2conv.systems.neural.text import USER, examples, turn_texts
from dstc2conv.task6.turns import read_turns

DIALOG = """\
1 resto_x R_phone resto_x_phone
2 resto_x R_cuisine thai
3 hi\thello what can i help you with today
4 can you book a table at resto_x\tgreat let me do the reservation
5 do you have its phone number\there it is resto_x_phone

"""
FACTS = [(USER, "resto_x R_phone resto_x_phone"), (USER, "resto_x R_cuisine thai")]


def test_the_facts_open_each_example_history(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text(DIALOG + DIALOG.replace("resto_x", "resto_y"))
    turns = read_turns(str(path))
    exs = examples(turns)
    assert list(exs[0].history) == FACTS
    assert list(exs[2].history[:2]) == FACTS and len(exs[2].history) == 6
    assert [e.history[:2] for e in exs[3:5]] == [tuple((u, t.replace("resto_x", "resto_y")) for u, t in FACTS)] * 2
    assert "thai" not in set(w for t in turn_texts(turns) for w in t.split())   # (the vocabulary's texts)


def test_tfidf_sees_the_facts_through_preface(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text(DIALOG)
    turns = read_turns(str(path))
    candidates = ("here it is resto_x_phone", "great let me do the reservation", "hello what can i help you with today")

    class Recorded(TfIdfMatch):
        def preface(self, context):
            self.shown = context
            super().preface(context)
    system = Recorded(candidates=candidates, input="conversation").fit(turns)
    run(system, turns)
    assert system.shown == ("resto_x R_phone resto_x_phone", "resto_x R_cuisine thai")
