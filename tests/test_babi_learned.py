"""The learned systems on bAbI dialog tasks 1-5: the bAbI KB shipped for the match
features and chosen by the training file, a toy bAbI-like task learned with an entity
no training dialog uses, the settings chosen per task (``task_settings``)."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems import registry
from dstc2conv.systems.interface import predict
from dstc2conv.systems.memn2n import MemN2N
from dstc2conv.systems.memn2n.match import BABI_TYPES, TYPES, babi_kb, choose_kb, kb_entities, kb_types
from dstc2conv.systems.task_settings import SETTINGS, TASKS, settings_for
from dstc2conv.task6.turns import read_turns

TRAIN_FOODS = ("italian", "french", "indian")
CITIES = ("paris", "rome")


def dialog(food: str, city: str, number: str) -> str:
    """A bAbI-like dialog (task 1's flow, shortened): the api_call repeats what was said."""
    lines = ["hi\thello what can i help you with today", f"may i have a table with {food} food\ti'm on it",
             "<SILENCE>\twhere should it be", f"{city} please\thow many people would be in your party",
             f"we will be {number}\tok let me look into some options for you",
             f"<SILENCE>\tapi_call {food} {city} {number} cheap"]
    return "\n".join(f"{i} {line}" for i, line in enumerate(lines, 1))


def write(path, dialogs) -> str:
    path.write_text("\n\n".join(dialogs) + "\n\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("babi")
    rng = np.random.default_rng(0)

    def some(n, foods):
        return [dialog(foods[rng.integers(len(foods))], CITIES[rng.integers(2)], ("two", "four")[rng.integers(2)])
                for _ in range(n)]

    return {"trn": write(folder / "trn.txt", some(60, TRAIN_FOODS)), "dev": write(folder / "dev.txt", some(10, TRAIN_FOODS)),
            # thai: a cuisine of the KB's other half, in no training dialog
            "oov": write(folder / "oov.txt", [dialog("thai", "rome", "two"), dialog("thai", "paris", "four")])}


def test_the_babi_kb_ships_with_both_halves_and_the_papers_seven_types():
    assert babi_kb() is not None
    entities = kb_entities("babi")
    phones = [w for w, types in entities.items() if types == ("R_phone",)]
    assert len(phones) == 1200 and len([w for w, t in entities.items() if t == ("R_address",)]) == 1200
    assert entities["thai"] == entities["italian"] == ("R_cuisine",)         # both halves
    assert entities["tokyo"] == entities["paris"] == ("R_location",)
    assert entities["two"] == ("R_number",) and entities["8"] == ("R_rating",) and entities["cheap"] == ("R_price",)
    assert kb_types("babi") == BABI_TYPES and len(BABI_TYPES) == 7


def test_task6s_match_kb_is_unchanged():
    entities = kb_entities()
    assert entities == kb_entities("task6") and kb_types("task6") == TYPES
    assert len(entities) == 371 and "R_post_code" in TYPES and "two" not in entities


def test_the_kb_is_chosen_by_the_training_files_words(tmp_path):
    assert choose_kb(["may i have a table in paris for two", "api_call italian paris two cheap"]) == "babi"
    assert choose_kb(["i want a cheap restaurant in the north part of town", "api_call thai north cheap"]) == "task6"
    assert choose_kb([]) == "task6"
    kb = tmp_path / "kb.txt"
    kb.write_text("1 r1 R_cuisine\tthai\n1 r1 R_number\tsix\n", encoding="utf-8")
    assert kb_types(str(kb)) == BABI_TYPES and kb_entities(str(kb)) == {"six": ("R_number",), "thai": ("R_cuisine",)}
    kb.write_text("1 r1 R_cuisine thai\n1 r1 R_stars 5\n", encoding="utf-8")
    with pytest.raises(Dstc2ConvError, match="R_stars is no type of the match features") as caught:
        kb_types(str(kb))
    assert caught.value.line == 2


def test_an_unseen_cuisine_is_answered_through_its_type_word(toy):
    """Trained on italian, french and indian only, MemN2N + match answers `api_call thai
    ...` when the user said thai: the word is unknown to it (nothing in the bags), its
    type word $cuisine, given to the candidate holding it once it was said, is not."""
    trn, dev, oov = (read_turns(toy[k]) for k in ("trn", "dev", "oov"))
    candidates = sorted({t.gold for t in trn + oov})
    system = MemN2N(candidates, match=True, memory=10, epochs=15, batch=16, seed=0).fit(trn, dev)
    assert system.kb_ == "babi" and system.vocab.index("thai") == 0 and system.vocab.index("$number") > 0
    said = predict(system, oov)
    assert said[-1] == "api_call thai paris four cheap" and said[5] == "api_call thai rome two cheap"
    with_types = MemN2N(candidates, match=True, typed_memory=True, memory=10, epochs=15, batch=16).fit(trn, dev)
    assert predict(with_types, oov) == [t.gold for t in oov]
    without = MemN2N(candidates, memory=10, epochs=15, batch=16, seed=0).fit(trn, dev)
    assert not any("thai" in answer for answer in predict(without, oov))


def test_typed_memory_puts_type_words_in_the_slots_and_needs_the_match_features(toy):
    trn = read_turns(toy["trn"])
    system = MemN2N(match=True, typed_memory=True, memory=4, epochs=1).fit(trn, None)
    ids = system.encode([system_example("we will be two")]).query[0]
    assert ids == [system.vocab.index(w) for w in ("we", "will", "be", "two", "$number")]
    with pytest.raises(Dstc2ConvError, match="typed_memory: True needs the match features"):
        MemN2N(typed_memory=True)


def system_example(user: str):
    from dstc2conv.systems.neural.text import Example

    return Example((), user, "")


def test_a_kb_file_named_is_used_and_kept_in_the_model(toy, tmp_path):
    kb = tmp_path / "kb.txt"
    kb.write_text("1 r1 R_cuisine\tthai\n1 r1 R_location\trome\n", encoding="utf-8")
    system = MemN2N(match=True, kb=str(kb), epochs=1).fit(read_turns(toy["trn"]), None)
    assert sorted(system.entity_column) == ["rome", "thai"]
    system.save(tmp_path / "model")
    loaded = registry.load(tmp_path / "model")
    assert loaded.kb_ == str(kb) and loaded.entity_column == system.entity_column


def test_every_chosen_setting_is_one_its_system_takes():
    assert set(SETTINGS) <= set(registry.NAMES)
    for name, tasks in SETTINGS.items():
        assert set(tasks) <= set(TASKS), name
        takes = inspect.signature(registry.entry(name).system_class()).parameters
        for task, settings in tasks.items():
            assert settings and set(settings) <= set(takes) - {"candidates"}, (name, task)
            assert settings_for(name, task) == settings
            registry.entry(name).build(("hello",), **settings)        # checked by the constructor
    assert settings_for("memn2n", "T6") == settings_for("memn2n", None) == settings_for("memn2n", "T9") == {}
    assert settings_for("rules", "T1") == {}


def test_a_setting_a_system_does_not_take_is_refused():
    with pytest.raises(Dstc2ConvError, match="^nn: got an unexpected keyword argument 'hops'"):
        registry.entry("nn").build(("hello",), hops=3)


def test_the_facts_before_a_dialogs_first_turn_are_in_the_memory(tmp_path):
    """bAbI tasks 3 and 4 open with the KB's facts, before any exchange: the first turn's
    ``lead``, which the loop shows the system after ``reset`` and the training examples
    hold, so `here it is <name>_phone` can be answered from them."""
    from dstc2conv.systems.interface import run
    from dstc2conv.systems.neural.text import examples

    path = tmp_path / "t4.txt"
    path.write_text("1 resto_a R_phone resto_a_phone\n2 hi\thello\n3 do you have its phone number\there it is "
                    "resto_a_phone\n\n", encoding="utf-8")
    turns = read_turns(path)
    assert turns[0].lead == ("resto_a R_phone resto_a_phone",) and turns[1].lead == ()
    assert [slot for slot in examples(turns)[1].history] == [
        ("$user", "resto_a R_phone resto_a_phone"), ("$user", "hi"), ("$bot", "hello")]
    system = MemN2N(match=True, epochs=1, memory=5).fit(turns, None)
    seen = []
    system.preface = lambda lead: seen.append(lead)
    run(system, turns)
    assert seen == [turns[0].lead]
