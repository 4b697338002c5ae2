"""The converter on tiny hand-written DSTC2 calls: golden output, determinism, the rules."""
from __future__ import annotations

import json
import random
from dataclasses import replace

from conftest import GOLDEN, SAMPLE

from dstc2conv.builder.pipeline import BuildOptions, build
from dstc2conv.convert.dialogs import assign_ratings, merge_repeats
from dstc2conv.dstc2.archive import read_source
from dstc2conv.task6 import format as task6


def _build(tmp_path, split="test", seed=0, name="out"):
    """A build of the sample with the KB from its logs: the sample's restaurants are its own."""
    out = tmp_path / name
    build(BuildOptions(split=split, raw=(str(SAMPLE),), out=str(out), seed=seed, kb="logs"))
    return out


def test_sample_matches_golden(tmp_path):
    out = _build(tmp_path)
    assert (out / "dialog-babi-task6-dstc2-tst.txt").read_text() == (GOLDEN / "sample-tst.txt").read_text()
    assert (out / "dialog-babi-task6-dstc2-candidates.txt").read_text() == \
        (GOLDEN / "sample-tst-candidates.txt").read_text()
    assert (out / "dialog-babi-task6-dstc2-kb.txt").read_text() == (GOLDEN / "sample-kb.txt").read_text()


def test_same_seed_same_bytes_other_seed_other_ratings(tmp_path):
    a = _build(tmp_path, "all", 7, "a")
    b = _build(tmp_path, "all", 7, "b")
    c = _build(tmp_path, "all", 8, "c")
    for name in ("dialog-babi-task6-dstc2-tst.txt", "dialog-babi-task6-dstc2-dev.txt",
                 "dialog-babi-task6-dstc2-candidates.txt", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    tst_a = (a / "dialog-babi-task6-dstc2-tst.txt").read_text()
    tst_c = (c / "dialog-babi-task6-dstc2-tst.txt").read_text()

    def strip(text):
        return [line.rsplit(" ", 1)[0] if "R_rating" in line else line for line in text.splitlines()]
    assert strip(tst_a) == strip(tst_c)  # only ratings depend on the seed


def test_output_round_trips_through_the_task6_reader(tmp_path):
    text = (_build(tmp_path) / "dialog-babi-task6-dstc2-tst.txt").read_text()
    dialogs = task6.parse(text)
    assert len(dialogs) == 3
    assert task6.serialize(dialogs) == text


def test_manifest_names_every_dialog_and_input(tmp_path):
    out = _build(tmp_path, "all")
    manifest = json.loads((out / "manifest.json").read_text())
    files = manifest["files"]
    assert files["dialog-babi-task6-dstc2-tst.txt"]["dialogs"] == [
        "Mar13_S9A0/voip-sample00001-20260101_100000",
        "Mar13_S9A0/voip-sample00002-20260101_110000",
        "Mar13_S9A1/voip-sample00003-20260101_120000",
    ]
    # published split: the first 500 of train+dev in session order are dev (here: both calls)
    assert files["dialog-babi-task6-dstc2-dev.txt"]["dialogs"] == [
        "Mar13_S9A0/voip-sample00001-20260101_100000",
        "Mar13_S9A1/voip-sample00004-20260101_130000",
    ]
    assert files["dialog-babi-task6-dstc2-trn.txt"]["dialogs"] == []
    assert manifest["seed"] == 0 and manifest["kb"]["source"] == "logs"
    assert len(manifest["inputs"]) == 1 and len(manifest["inputs"][0]["sha256"]) == 64
    for name, entry in files.items():
        assert len(task6.read(out / name)) == len(entry["dialogs"])


def test_dstc2_split_uses_the_flists(tmp_path):
    out = tmp_path / "o"
    build(BuildOptions(split="train", raw=(str(SAMPLE),), out=str(out), partition="dstc2"))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["partition"] == "dstc2"
    assert manifest["files"]["dialog-babi-task6-dstc2-trn.txt"]["dialogs"] == [
        "Mar13_S9A1/voip-sample00004-20260101_130000"]


def test_slot_only_in_labels_is_dropped(tmp_path):
    # the user said "center"; the label says centre: the published rule drops the slot
    out = tmp_path / "o"
    build(BuildOptions(split="train", raw=(str(SAMPLE),), out=str(out), partition="dstc2", kb="logs"))
    text = (out / "dialog-babi-task6-dstc2-trn.txt").read_text()
    assert "\tapi_call indian R_location R_price\n" in text


def test_kb_file_is_used_when_given(tmp_path):
    kb = tmp_path / "kb.txt"
    kb.write_text("1 pasta_palace R_cuisine italian\n1 pasta_palace R_location north\n"
                  "1 pasta_palace R_price cheap\n1 wok_this_way R_cuisine italian\n"
                  "1 wok_this_way R_location north\n1 wok_this_way R_price cheap\n")
    out = tmp_path / "o"
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out), kb=str(kb)))
    dialog = task6.read(out / "dialog-babi-task6-dstc2-tst.txt")[0]
    results = [line.text for line in dialog.lines if isinstance(line, task6.Context)]
    assert [r for r in results if "R_rating" not in r] == [
        "pasta_palace R_cuisine italian", "pasta_palace R_location north", "pasta_palace R_price cheap",
        "wok_this_way R_cuisine italian", "wok_this_way R_location north", "wok_this_way R_price cheap"]
    ratings = {r.split()[0]: int(r.split()[2]) for r in results if "R_rating" in r}
    assert ratings["pasta_palace"] > ratings["wok_this_way"]  # the offered one rates highest
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kb"]["source"] == "file" and manifest["kb"]["path"] == str(kb)


def test_merge_repeats_keeps_later_user_unless_earlier_was_silence():
    system = ["hello", "ask food", "ask food", "offer", "offer", "bye"]
    users = ["<SILENCE>", "noise words", "thai", "more", "other", "thanks"]
    assert merge_repeats(system, users) == [
        (0, 0, "<SILENCE>"), (1, 2, "<SILENCE>"), (3, 4, "more"), (5, 5, "other")]
    users[0] = "hi"
    assert merge_repeats(system, users)[1] == (1, 2, "noise words")


def test_ratings_make_offers_predictable():
    rng = random.Random(3)
    for _ in range(200):
        names = [f"r{i}" for i in range(rng.randint(1, 30))]
        offered = rng.sample(names, rng.randint(0, min(len(names), 9)))
        ratings = assign_ratings(names, offered, rng)
        remaining = set(names)
        for name in offered:
            assert ratings[name] > max((ratings[n] for n in remaining - {name}), default=-1)
            remaining.discard(name)


def test_reader_reads_folder_and_keeps_turns():
    source = read_source(SAMPLE)
    call = source.calls["Mar13_S9A0/voip-sample00002-20260101_110000"]
    assert len(call.turns) == 7
    assert call.turns[4].system_acts[0].act == "canthelp"
    assert dict(call.turns[4].goals)["food"] == "chinese"
    assert set(source.flists) == {"train", "dev", "test"}


def test_parallel_reading_gives_the_same_files(tmp_path):
    one = tmp_path / "one"
    two = tmp_path / "two"
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(one), jobs=1))
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(two), jobs=2))
    for path in sorted(one.iterdir()):
        assert path.read_bytes() == (two / path.name).read_bytes(), path.name


def _lexicon():
    from dstc2conv.convert.kb import kb_from_acts
    from dstc2conv.convert.lexicon import make_lexicon
    from dstc2conv.dstc2.ontology import Dstc2Ontology

    ontology = Dstc2Ontology(("modern european", "thai"), ("centre", "north"), ("cheap",),
                        ("blue door", "the very long named noodle house bar"))
    return make_lexicon(ontology, kb_from_acts(ontology.names, []))


def _turn(system, *acts):
    from dstc2conv.dstc2.calls import Act, CallTurn

    return CallTurn(system, tuple(Act(a, tuple(s)) for a, *s in acts), "", (), (), "none", ())


def test_clean_system_delexicalises_the_first_detail_and_cuts_the_rest():
    from dstc2conv.convert.dialogs import clean_system

    lex = _lexicon()
    offer = ("offer", ("name", "blue door"))
    assert clean_system(_turn("The phone number of blue door is 01223 000000 and it is on 1 Long Road .",
                              offer, ("inform", ("phone", "01223 000000")),
                              ("inform", ("addr", "1 long road"))), lex) == \
        "The phone number of blue_door is blue_door_phone"
    kept = "blue_door is in the centre , at C.B 1, 2 X.Y"
    assert clean_system(_turn("blue door is in the centre , at C.B 1, 2 X.Y", offer,
                              ("inform", ("postcode", "c.b 1")), ("inform", ("area", "centre"))), lex) == kept
    assert clean_system(_turn("There are  restaurants serving modern european food", ("request",)), lex) == \
        "There are restaurants serving modern_european food"
    assert clean_system(_turn("There are 12 restaurants", ("request",)), lex) == "There are restaurants"
    assert clean_system(_turn("the very long named noodle house bar is nice", ("offer", ("name",
                              "the very long named noodle house bar"))), lex) == \
        "the very long named noodle house bar is nice"


def test_clean_user():
    from dstc2conv.convert.dialogs import clean_user

    lex = _lexicon()
    assert clean_user("Noise sil", lex) == "<SILENCE>"
    assert clean_user("tv_noise", lex) == ""
    assert clean_user("sil modern european food at blue door please", lex) == \
        "modern_european food at blue_door please"


def test_call_answers_the_first_user_turn_of_a_repeated_offer():
    import random as _random

    from dstc2conv.convert.dialogs import convert_call
    from dstc2conv.convert.kb import KB, Restaurant
    from dstc2conv.dstc2.calls import Act, Call, CallTurn

    lex = _lexicon()
    kb = KB((Restaurant("blue_door", (("R_cuisine", "thai"), ("R_location", "north"))),), "test")
    offer = (Act("offer", (("name", "blue door"),)), Act("inform", (("food", "thai"),)))
    goals = (("food", "thai"),)
    turns = (
        CallTurn("Hello , welcome to the Cambridge restaurant system? You can ask . How may I help you?",
             (Act("welcomemsg", ()),), "thai food", (), goals, "byconstraints", ()),
        CallTurn("blue door serves thai food", offer, "sorry what", (), goals, "byconstraints", ()),
        CallTurn("blue door serves thai food", offer, "thank you bye", (), goals, "finished", ()),
    )
    dialog = convert_call(Call("Mar13_S9A0/voip-x", "test", turns), kb, lex, _random.Random(0))
    text = task6.serialize_dialog(dialog)
    head, _, tail = text.partition("5 blue_door R_rating ")
    assert head == (
        "1 <SILENCE>\tHello , welcome to the Cambridge restaurant system . You can ask . How may I help you ?\n"
        "2 thai food\tapi_call thai R_location R_price\n"   # not "sorry what", the run's later user turn
        "3 blue_door R_cuisine thai\n"
        "4 blue_door R_location north\n")
    value, _, tail = tail.partition("\n")
    assert 5 <= int(value) <= 10   # offered, so rated from the top of the scale
    assert tail == "6 <SILENCE>\tblue_door serves thai food\n7 thank you bye\t you are welcome\n"


def test_fit_offer_leaves_out_what_the_offered_restaurant_contradicts():
    from dstc2conv.convert.apicall import fit_offer
    from dstc2conv.convert.kb import Restaurant

    blue = Restaurant("blue_door", (("R_cuisine", "thai"), ("R_location", "north")))
    assert fit_offer(("thai", "centre", "cheap"), blue) == ("thai", None, "cheap")   # no price fact
    assert fit_offer(("thai", "north", None), blue) == ("thai", "north", None)
    assert fit_offer(("italian", "centre", None), blue) == ("italian", "centre", None)   # none would remain
    assert fit_offer(("italian", "centre", None), None) == ("italian", "centre", None)   # not an offer


def test_disputed_offer():
    from dataclasses import replace

    from dstc2conv.convert.apicall import disputed
    from dstc2conv.convert.kb import Restaurant
    from dstc2conv.dstc2.calls import Act

    blue = Restaurant("blue_door", (("R_cuisine", "thai"), ("R_location", "north")))
    values = ("thai", "centre", None)
    offer = _turn("blue door serves thai food", ("offer", ("name", "blue door")))
    assert disputed(replace(offer, user="no i want the centre"), values, blue)   # says the value again
    assert disputed(replace(offer, user="anything else", user_acts=(Act("reqalts", ()),)), values, blue)
    assert not disputed(replace(offer, user="whats the phone number"), values, blue)
    assert not disputed(replace(offer, user="thai food"), values, blue)   # thai is not contradicted
    assert not disputed(replace(offer, user="the centre"), values, None)   # not an offer


def _fitting_call(dialog_manager, second_user):
    import random as _random

    from dstc2conv.convert.dialogs import convert_call
    from dstc2conv.convert.kb import KB, Restaurant
    from dstc2conv.convert.lexicon import make_lexicon
    from dstc2conv.dstc2.calls import Act, Call, CallTurn
    from dstc2conv.dstc2.ontology import Dstc2Ontology

    kb = KB((Restaurant("blue_door", (("R_cuisine", "thai"), ("R_location", "north"))),
             Restaurant("red_door", (("R_cuisine", "thai"), ("R_location", "centre")))), "test")
    lex = make_lexicon(Dstc2Ontology(("thai",), ("centre", "north"), ("cheap",), ("blue door", "red door")), kb)
    goals = (("area", "centre"), ("food", "thai"))

    def offer(name):
        return (Act("offer", (("name", name),)), Act("inform", (("food", "thai"),)))

    turns = (
        CallTurn("Hello , welcome to the Cambridge restaurant system? How may I help you?",
             (Act("welcomemsg", ()),), "thai food in the centre", (), goals, "byconstraints", ()),
        CallTurn("blue door serves thai food", offer("blue door"), second_user, (), goals, "byconstraints", ()),
        CallTurn("red door serves thai food", offer("red door"), "thank you bye", (), goals, "finished", ()),
    )
    dialog = convert_call(Call("Mar13_S9A0/voip-y", "test", turns, dialog_manager), kb, lex, _random.Random(0))
    return [(e.user, e.bot) for e in dialog.exchanges if e.bot.startswith("api_call")]


def test_call_is_fitted_to_each_offer():
    # blue_door is in the north: the first call leaves the centre out, so blue_door is
    # among its results; red_door is in the centre: the values are whole again
    fitted = [("thai food in the centre", "api_call thai R_location R_price"),
              ("whats the phone number", "api_call thai centre R_price")]
    assert _fitting_call(1, "whats the phone number") == fitted
    assert _fitting_call(0, "whats the phone number") == fitted
    # the user disputes the offer: the MDP system's call keeps the values, the POMDP's does not
    assert _fitting_call(0, "in the centre") == [("thai food in the centre", "api_call thai centre R_price")]
    assert _fitting_call(1, "in the centre") == [("thai food in the centre", "api_call thai R_location R_price"),
                                                 ("in the centre", "api_call thai centre R_price")]


def test_default_sources_find_tarballs_and_unpacked_releases(tmp_path):
    from dstc2conv.builder.pipeline import default_sources

    raw = tmp_path / "data_raw"
    raw.mkdir()
    assert default_sources(str(raw)) == ([str(SAMPLE)], True)   # nothing there: the sample
    (raw / "dstc2_test.tar.gz").write_bytes(b"")
    (raw / "unpacked" / "scripts" / "config").mkdir(parents=True)
    (raw / "notes.txt").write_text("")
    assert default_sources(str(raw)) == ([str(raw / "dstc2_test.tar.gz"), str(raw / "unpacked")], False)
    (raw / "scripts" / "config").mkdir(parents=True)            # unpacked in place
    assert default_sources(str(raw))[0][0] == str(raw)


def test_build_with_no_data_uses_the_sample_and_says_so(tmp_path, capsys, monkeypatch):
    from dstc2conv.cli import run

    monkeypatch.chdir(tmp_path)
    (tmp_path / "data_raw").mkdir()
    assert run(["build", "--split", "test", "--out", "o"]) == 0
    err = capsys.readouterr().err
    assert "building the small hand-written sample" in err and "its KB is built from its logs" in err
    # the sample's test flist names 3 calls (one of them also in the dev flist): its test file has 3 dialogs
    assert "result lines from a KB built from the logs of the 4 calls read (5 restaurants): " \
           f"{SAMPLE}: 1 train, 1 dev, 3 test (1 call in two flists or more, counted in each)\n" in err
    assert "dialog-babi-task6-dstc2-tst.txt: 3 dialogs" in err
    assert (tmp_path / "o" / "dialog-babi-task6-dstc2-tst.txt").read_text() == (GOLDEN / "sample-tst.txt").read_text()


def test_canthelp_calls_the_database_only_for_the_mdp_system(tmp_path):
    import shutil

    call = "Mar13_S9A0/voip-sample00002-20260101_110000"
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    log_path = raw / "data" / call / "log.json"
    log = json.loads(log_path.read_text())
    assert log["system-specific"]["dialog-manager"] == 0
    golden = (GOLDEN / "sample-tst.txt").read_text()
    assert "4 expensive\tapi_call modern_european centre expensive\n5 api_call no result\n" \
        "6 <SILENCE>\tSorry there is no modern_european restaurant" in golden

    log["system-specific"]["dialog-manager"] = 1   # the POMDP system: no call at its canthelp
    log_path.write_text(json.dumps(log))
    out = tmp_path / "out"
    build(BuildOptions(split="test", raw=(str(raw),), out=str(out), kb="logs"))
    text = (out / "dialog-babi-task6-dstc2-tst.txt").read_text()
    assert "4 expensive\tSorry there is no modern_european restaurant in the expensive price range\n" \
        "5 how about chinese food\tapi_call chinese centre expensive\n" in text
    assert text.count("api_call") == golden.count("api_call") - 2   # the call and its "no result"


def test_shown_offer_needs_the_name_in_the_words():
    from dstc2conv.convert.apicall import shown_offer

    def offer(system, name):
        return _turn(system, ("offer", ("name", name)))

    assert shown_offer(offer("blue door serves thai food", "blue door")) == "blue door"
    assert shown_offer(offer("pizza express Fen Ditton is in the centre", "pizza express fen ditton")) == \
        "pizza express fen ditton"   # extra words the lexicon does not join
    assert shown_offer(offer("pizza_express Fen Ditton is nice", "pizza express fen ditton")) == \
        "pizza express fen ditton"
    assert shown_offer(offer("Sorry, I can't hear you", "blue door")) is None
    assert shown_offer(offer("blue doors are nice", "blue door")) is None
    assert shown_offer(_turn("blue door is nice", ("inform", ("name", "blue door")))) is None


def test_offer_the_system_does_not_say_is_no_offer():
    import random as _random

    from dstc2conv.convert.dialogs import convert_call
    from dstc2conv.convert.kb import KB, Restaurant
    from dstc2conv.convert.lexicon import make_lexicon
    from dstc2conv.dstc2.calls import Act, Call, CallTurn
    from dstc2conv.dstc2.ontology import Dstc2Ontology

    kb = KB(tuple(Restaurant(n, (("R_cuisine", "thai"), ("R_location", "north")))
                  for n in ("blue_door", "green_door", "red_door")), "test")
    lex = make_lexicon(Dstc2Ontology(("thai",), ("north",), ("cheap",), ("blue door", "green door", "red door")), kb)
    goals = (("food", "thai"),)

    def offer(name):
        return (Act("offer", (("name", name),)), Act("inform", (("food", "thai"),)))

    turns = (
        CallTurn("Hello , welcome to the Cambridge restaurant system? How may I help you?",
             (Act("welcomemsg", ()),), "thai food", (), goals, "byconstraints", ()),
        CallTurn("Sorry, I can't hear you", offer("red door"), "thai", (), goals, "byconstraints", ()),
        CallTurn("blue door serves thai food", offer("blue door"), "anything else", (), goals, "byconstraints", ()),
        CallTurn("green door serves thai food", offer("green door"), "thank you bye", (), goals, "finished", ()),
    )
    for seed in range(20):
        dialog = convert_call(Call("Mar13_S9A0/voip-z", "test", turns, 1), kb, lex, _random.Random(seed))
        lines = task6.serialize_dialog(dialog).splitlines()
        assert lines[1] == "2 thai food\tSorry, I can't hear you"   # no call at the unsaid offer
        assert lines[2] == "3 thai\tapi_call thai R_location R_price"
        assert lines[-3:] == ["13 <SILENCE>\tblue_door serves thai food",
                              "14 anything else\tgreen_door serves thai food", "15 thank you bye\t you are welcome"]
        ratings = {line.split()[1]: int(line.split()[3]) for line in lines if "R_rating" in line}
        assert ratings["blue_door"] > ratings["green_door"] > ratings["red_door"]


def _said_lexicon(kb=None):
    from dstc2conv.convert.kb import KB
    from dstc2conv.convert.lexicon import make_lexicon
    from dstc2conv.dstc2.ontology import Dstc2Ontology

    ontology = Dstc2Ontology(("dontcare", "european", "modern european", "north american", "thai"),
                        ("centre", "east", "north"), ("cheap", "expensive", "moderate"), ("blue door", "red door"))
    return make_lexicon(ontology, kb or KB((), "test"))


def test_said_values_reads_the_ontology_values_in_the_users_words():
    from dstc2conv.convert.apicall import said_values
    from dstc2conv.dstc2.calls import Call

    lex = _said_lexicon()
    assert "dontcare" not in lex.slot_of   # a label, never a word the user says

    def said(*users):
        turns = tuple(replace(_turn("..."), user=u) for u in users)
        return said_values(Call("Mar13_S9A0/voip-s", "test", turns), len(turns), lex)

    assert said("i want Modern European food") == ("modern_european", None, None)   # the longest
    assert said("north american food") == ("north_american", None, None)   # no area inside it
    assert said("thai food in the north", "any price range", "how about european") == \
        ("european", "north", None)
    assert said("cheap thai", "no moderately priced") == ("thai", None, "moderate")   # the last mention wins
    assert said("sea food in the center", "i dont care") == (None, None, None)
    assert said("thai", "european or thai") == ("thai", None, None)
    assert said("inexpensive thai in the north", "at least") == ("thai", "north", None)   # words start values


def test_api_call_values_are_the_ontology_values_the_user_said():
    import random as _random

    from dstc2conv.convert.dialogs import convert_call
    from dstc2conv.convert.kb import KB, Restaurant
    from dstc2conv.dstc2.calls import Act, Call, CallTurn

    kb = KB((Restaurant("blue_door", (("R_cuisine", "modern_european"), ("R_location", "centre"),
                                      ("R_price", "moderate"))),
             Restaurant("red_door", (("R_cuisine", "north_american"), ("R_location", "centre"),
                                     ("R_price", "moderate")))), "test")
    lex = _said_lexicon(kb)

    def offer(name):
        return (Act("offer", (("name", name),)),)

    goals = (("food", "thai"),)   # the labels are not read
    turns = (
        CallTurn("Hello , welcome to the Cambridge restaurant system? How may I help you?",
             (Act("welcomemsg", ()),), "i want modern european food", (), goals, "byconstraints", ()),
        CallTurn("blue door serves modern european food", offer("blue door"), "is it moderately priced",
             (), goals, "byconstraints", ()),
        CallTurn("blue door is in the moderate price range", offer("blue door"),
             "how about north american food", (), goals, "byconstraints", ()),
        CallTurn("red door serves north american food", offer("red door"), "thank you bye",
             (), goals, "finished", ()),
    )
    dialog = convert_call(Call("Mar13_S9A0/voip-v", "test", turns, 1), kb, lex, _random.Random(0))
    assert [(e.user, e.bot) for e in dialog.exchanges if e.bot.startswith("api_call")] == [
        ("i want modern_european food", "api_call modern_european R_location R_price"),
        ("is it moderately priced", "api_call modern_european R_location moderate"),
        ("how about north_american food", "api_call north_american R_location moderate"),
    ]
