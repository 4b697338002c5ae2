"""The rules of bAbI dialog tasks 1-5 (rules/babi.yaml): tiny dialogs of each task's
flow written here, the published train and dev files (read from ../shared at run time),
an OOV stand-in made from the dev files (the other half of the KB's cuisines, locations
and restaurants), how the rule file is picked for the data, and the new keys' errors."""
from __future__ import annotations

import os

import pytest
from conftest import REFERENCE, need

from dstc2conv.cli import run
from dstc2conv.systems.rules.engine import Compiled, predict
from dstc2conv.systems.rules.problems import RuleFileError
from dstc2conv.systems.rules.ruleset import load_rules
from dstc2conv.systems.rules.shipped import shipped_for, shipped_rules
from dstc2conv.systems.rules.system import Rules, answers
from dstc2conv.task6.turns import read_turns

BABI = REFERENCE / "babi"
TASKS = ("task1-API-calls", "task2-API-refine", "task3-options", "task4-phone-address", "task5-full-dialogs")
RELATIONS = ("R_phone", "R_cuisine", "R_address", "R_location", "R_number", "R_price", "R_rating")


def facts(name: str, number: str) -> list[str]:
    """The 7 result lines of a restaurant named resto_<location>_<price>_<cuisine>_<rating>stars,
    in the order the dialogs give them."""
    _, location, price, cuisine, stars = name.split("_")
    values = (f"{name}_phone", cuisine, f"{name}_address", location, number, price, stars[:-5])
    return [f"{name} {relation} {value}" for relation, value in zip(RELATIONS, values)]


def dialog(*lines: str) -> str:
    return "".join(f"{i} {line}\n" for i, line in enumerate(lines, 1)) + "\n"


# one dialog of each task's flow, written for this test (user\tbot; result lines alone)
T1 = dialog("hi\thello what can i help you with today",
            "can you book a table in paris\ti'm on it",
            "<SILENCE>\tany preference on a type of cuisine",
            "with french food\thow many people would be in your party",
            "for four please\twhich price range are looking for",
            "in a cheap price range please\tok let me look into some options for you",
            "<SILENCE>\tapi_call french paris four cheap")
T2 = dialog("hello\thello what can i help you with today",
            "may i have a table for two in a moderate price range with thai food in seoul\ti'm on it",
            "<SILENCE>\tok let me look into some options for you",
            "<SILENCE>\tapi_call thai seoul two moderate",
            "actually i would prefer in tokyo\tsure is there anything else to update",
            "instead could it be for eight people\tsure is there anything else to update",
            "no\tok let me look into some options for you",
            "<SILENCE>\tapi_call thai tokyo eight moderate",
            "thanks\tyou're welcome")
T3_NAMES = ("resto_rome_expensive_italian_2stars", "resto_rome_expensive_italian_7stars",
            "resto_rome_expensive_italian_4stars")
T3 = dialog(*[line for name in T3_NAMES for line in facts(name, "six")],
            "good morning\thello what can i help you with today",
            "can you make a restaurant reservation with italian food in rome\ti'm on it",
            "<SILENCE>\thow many people would be in your party",
            "we will be six\twhich price range are looking for",
            "i am looking for a expensive restaurant\tok let me look into some options for you",
            "<SILENCE>\twhat do you think of this option: resto_rome_expensive_italian_7stars",
            "no i don't like that\tsure let me find an other option for you",
            "<SILENCE>\twhat do you think of this option: resto_rome_expensive_italian_4stars",
            "it's perfect\tgreat let me do the reservation")
T4 = dialog(*facts("resto_hanoi_cheap_korean_5stars", "two"),
            "hi\thello what can i help you with today",
            "may i have a table at resto_hanoi_cheap_korean_5stars\tgreat let me do the reservation",
            "can you provide the address\there it is resto_hanoi_cheap_korean_5stars_address",
            "what is the phone number of the restaurant\there it is resto_hanoi_cheap_korean_5stars_phone")
T5_NAMES = ("resto_london_moderate_spanish_1stars", "resto_london_moderate_spanish_8stars",
            "resto_london_moderate_spanish_3stars")
T5 = dialog("hello\thello what can i help you with today",
            "i'd like to book a table with spanish cuisine\ti'm on it",
            "<SILENCE>\twhere should it be",
            "madrid please\thow many people would be in your party",
            "for four people please\twhich price range are looking for",
            "in a moderate price range please\tok let me look into some options for you",
            "<SILENCE>\tapi_call spanish madrid four moderate",
            "instead could it be in london\tsure is there anything else to update",
            "no\tok let me look into some options for you",
            "<SILENCE>\tapi_call spanish london four moderate",
            *[line for name in T5_NAMES for line in facts(name, "four")],
            "<SILENCE>\twhat do you think of this option: resto_london_moderate_spanish_8stars",
            "do you have something else\tsure let me find an other option for you",
            "<SILENCE>\twhat do you think of this option: resto_london_moderate_spanish_3stars",
            "let's do it\tgreat let me do the reservation",
            "do you have its phone number\there it is resto_london_moderate_spanish_3stars_phone",
            "you rock\tis there anything i can help you with",
            "no thanks\tyou're welcome")

# the rule behind each bot turn: the golden list
GOLDEN = {
    "T1": ["greeting", "on-it", "ask-cuisine", "ask-number", "ask-price", "look", "call"],
    "T2": ["greeting", "on-it", "look", "call", "update", "update", "updates-done", "call", "welcome"],
    "T3": ["greeting", "on-it", "ask-number", "ask-price", "look", "offer", "option-rejected", "offer",
           "option-accepted"],
    "T4": ["greeting", "book-named", "address", "phone"],
    "T5": ["greeting", "on-it", "ask-location", "ask-number", "ask-price", "look", "call", "update",
           "updates-done", "call", "offer", "option-rejected", "offer", "option-accepted", "phone",
           "anything-else", "welcome-at-end"],
}
DIALOGS = {"T1": T1, "T2": T2, "T3": T3, "T4": T4, "T5": T5}


def _answers(path):
    turns = read_turns(path)
    return turns, answers(Rules(load_rules(shipped_rules("babi.yaml"))).fit(), turns)


@pytest.mark.parametrize("task", sorted(DIALOGS))
def test_each_tasks_flow_is_answered_by_the_shipped_rules(tmp_path, task):
    path = tmp_path / "data.txt"
    path.write_text(DIALOGS[task])
    turns, predictions = _answers(path)
    assert [p.text for p in predictions] == [t.gold for t in turns]
    assert [p.rule for p in predictions] == GOLDEN[task]
    # the engine's own walk (report, check, tune) gives the same, result lines before the first turn included
    assert predict(Compiled(load_rules(shipped_rules("babi.yaml"))), turns) == predictions


def test_the_shipped_babi_rules_check_and_the_ontology_gives_the_call_order():
    ruleset = load_rules(shipped_rules("babi.yaml"))
    assert ruleset.ontology.slot_names == ("cuisine", "location", "number", "price")
    assert [s.attribute for s in ruleset.ontology.slots] == ["R_cuisine", "R_location", "R_number", "R_price"]
    assert len(ruleset.ontology.values["cuisine"]) == len(ruleset.ontology.values["location"]) == 10


# ---------------------------------------------------------------- the published files

def _published(task: str, split: str):
    return need(BABI / f"dialog-babi-{task}-{split}.txt")


@pytest.mark.parametrize("split", ["trn", "dev"])
@pytest.mark.parametrize("task", TASKS)
def test_the_published_files_score_100_percent(task, split):
    turns, predictions = _answers(_published(task, split))
    wrong = [(t.dialog + 1, t.index + 1, t.gold, p.text) for t, p in zip(turns, predictions) if p.text != t.gold]
    assert wrong == []          # 100% per response, and so per dialog


# the standard half of the KB -> the OOV half (the test-OOV files' cuisines and locations)
OOV = {"british": "cantonese", "french": "japanese", "indian": "korean", "italian": "thai", "spanish": "vietnamese",
       "bombay": "bangkok", "london": "beijing", "madrid": "hanoi", "paris": "seoul", "rome": "tokyo"}


def _oov_token(token: str) -> str:
    if token.startswith("resto_"):     # resto_<location>_<price>_<cuisine>_<rating>stars[_phone|_address]
        return "_".join(OOV.get(part, part) for part in token.split("_"))
    return OOV.get(token, token)


def oov_stand_in(text: str) -> str:
    """``text`` with the standard half's cuisines, locations and restaurants made the OOV half's."""
    return "\n".join("\t".join(" ".join(map(_oov_token, part.split(" "))) for part in line.split("\t"))
                     for line in text.split("\n"))


def test_the_stand_in_maps_every_value():
    assert oov_stand_in("3 resto_rome_cheap_british_2stars R_phone resto_rome_cheap_british_2stars_phone\n"
                        "4 with british food in rome\tapi_call british rome two cheap\n") == \
        ("3 resto_tokyo_cheap_cantonese_2stars R_phone resto_tokyo_cheap_cantonese_2stars_phone\n"
         "4 with cantonese food in tokyo\tapi_call cantonese tokyo two cheap\n")


@pytest.mark.parametrize("task", TASKS)
def test_an_oov_stand_in_of_the_dev_files_scores_100_percent(tmp_path, task):
    text = oov_stand_in(_published(task, "dev").read_text())
    assert not set(OOV) & set(text.replace("_", " ").split())
    path = tmp_path / f"{task}-oov.txt"
    path.write_text(text)
    turns, predictions = _answers(path)
    assert [p.text for p in predictions] == [t.gold for t in turns]


# ---------------------------------------------------------------- picking the rule file

def test_the_rule_file_is_picked_by_the_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)       # no rules/ here: the shipped files
    by_name = tmp_path / "dialog-babi-task3-options-dev.txt"
    by_name.write_text("1 x\ty\n\n")
    assert shipped_for(by_name) == (shipped_rules("babi.yaml"), "the data is of bAbI tasks 1-5 by its name, "
                                                                "dialog-babi-task3-options-dev.txt")
    by_content = tmp_path / "data.txt"
    by_content.write_text(T1)
    assert shipped_for(by_content) == (shipped_rules("babi.yaml"), "the data is of bAbI tasks 1-5 by its first "
                                       "bot turn, 'hello what can i help you with today'")
    task6 = tmp_path / "dialog-babi-task6-dstc2-dev.txt"
    task6.write_text("1 <SILENCE>\tHello , welcome to the Cambridge restaurant system .\n\n")
    assert shipped_for(task6) == (shipped_rules("dstc2.yaml"), "the data is not of bAbI tasks 1-5")
    assert shipped_for(tmp_path / "absent.txt")[0] == shipped_rules("dstc2.yaml")
    # a checkout's rules/babi.yaml is used if there, as rules/dstc2.yaml is
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "babi.yaml").write_text("edited")
    assert shipped_for(by_content)[0] == os.path.join("rules", "babi.yaml")
    assert shipped_for(by_content, installed=True)[0] == shipped_rules("babi.yaml")


def test_score_picks_the_babi_rules_and_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t5.txt").write_text(T5)
    assert run(["rules", "score", "--data", "t5.txt", "--no-history"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("per-response accuracy  100.00%  (17/17)\nper-dialog accuracy    100.00%  (1/1)\n")
    assert err.startswith(f"dstc2conv: rules {shipped_rules('babi.yaml')}: the data is of bAbI tasks 1-5 by its "
                          "first bot turn, 'hello what can i help you with today' (--rules names another)\n")


def test_the_rules_system_picks_the_babi_rules_from_its_training_turns(tmp_path):
    (tmp_path / "t2.txt").write_text(T2)
    (tmp_path / "t6.txt").write_text("1 <SILENCE>\tHello , welcome to the Cambridge restaurant system .\n\n")
    assert Rules().fit(str(tmp_path / "t2.txt")).ruleset_.path == shipped_rules("babi.yaml")
    assert Rules().fit(str(tmp_path / "t6.txt")).ruleset_.path == shipped_rules("dstc2.yaml")
    assert Rules().fit().ruleset_.path == shipped_rules("dstc2.yaml")


# ---------------------------------------------------------------- the new keys' errors

RULES = """\
ontology: ontology.yaml
patterns:
  hello: hello
  ask: which {cuisine}
rules:
  - id: greet
    priority: 9
    when: {first_missing: colour}
    say: hello
  - id: take
    take_named: 1
"""


def _problems(tmp_path, ontology: str) -> list[str]:
    (tmp_path / "ontology.yaml").write_text(ontology)
    (tmp_path / "rules.yaml").write_text(RULES)
    with pytest.raises(RuleFileError) as err:
        load_rules(tmp_path / "rules.yaml")
    return [str(p).replace(str(tmp_path) + os.sep, "") for p in err.value.problems]


def test_the_new_keys_are_checked_with_the_file_and_line(tmp_path):
    assert _problems(tmp_path, "slots:\n  cuisine: R_cuisine\ncuisine: [thai]\n") == [
        "rules.yaml:8: condition 'first_missing': unknown slot 'colour' (slots: cuisine) (greet)",
        "rules.yaml:11: 'take_named' must be true or false, not 1 (take)",
    ]
    # an ontology's problems; the rules' slots are then not known, and not checked
    assert _problems(tmp_path, "slots:\n  cuisine: R_cuisine\n  order: R_x\n  price: price\n"
                               "cuisine: [thai]\nprice: [cheap]\nfood: [noodles]\n") == [
        "rules.yaml:11: 'take_named' must be true or false, not 1 (take)",
        "ontology.yaml:3: slots: 'order' is not a slot name (lower-case letters and _) ('order' is taken)",
        "ontology.yaml:4: slots: 'price' takes a result relation (R_ and letters or _), not 'price'",
        "ontology.yaml:7: unknown key 'food' (known: cuisine, order, price, served, slots, spaced_names, synonyms)",
    ]


def test_the_rules_system_fit_on_task_1s_train_file_answers_its_dev_file():
    """As ``table2 --train T1-trn --dev T1-dev --test T1-dev --systems rules`` runs it."""
    system = Rules().fit(str(_published(TASKS[0], "trn")))
    turns = read_turns(_published(TASKS[0], "dev"))
    assert system.ruleset_.path == shipped_rules("babi.yaml")
    assert [p.text for p in answers(system, turns)] == [t.gold for t in turns]
