"""`dstc2conv report`: the page's figures on a tiny file worked out by hand (agreement,
oracle, entity F1 by slot, the data blob), the errors, and the page in a real browser
(headless Chromium driven by selenium): no console error, the filters change the count of
shown turns as they should, `#dialog-N` opens a dialog, MemN2N's attention opens.

Without Chromium, chromedriver or selenium the browser test skips, saying why; with
DSTC2CONV_REQUIRE_DATA=1 (as in CI) it fails instead."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import toy

from dstc2conv.cli import run
from dstc2conv.report.agreement import oracle, pairs
from dstc2conv.report.slots import by_slot

# toy.TST: dialog 1 has 3 bot turns (greeting, api_call, closing), dialog 2 has 4
# (greeting, ask_area, ask_food, closing).
GOLD = [toy.WELCOME, "api_call thai north cheap", "you are welcome",
        toy.WELCOME, "What part of town do you have in mind?", "What kind of food would you like?", "you are welcome"]
# A: wrong at the api_call (south) and at the ask_area: right at turns 0, 2, 3, 5, 6
A = [toy.WELCOME, "api_call thai south cheap", "you are welcome",
     toy.WELCOME, "What kind of food would you like?", "What kind of food would you like?", "you are welcome"]
# B: "you are welcome" throughout: right at the closings, turns 2 and 6
B = ["you are welcome"] * 7
SESSIONS = ["Mar13_S0A0/voip-one", "Mar13_S1A1/voip-two"]


@pytest.fixture
def inputs(tmp_path):
    files = toy.write(tmp_path)
    for name, lines in (("a", A), ("b", B)):
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "manifest.json").write_text(json.dumps({"files": {"tst.txt": {"dialogs": SESSIONS}}}))
    return files


def _report(tmp_path, *extra) -> Path:
    out = tmp_path / "report.html"
    assert run(["report", "--data", str(tmp_path / "tst.txt"), "--system", f"A={tmp_path / 'a.txt'}",
                "--system", f"B={tmp_path / 'b.txt'}", "--out", str(out), "--quiet", "--bootstrap", "200", *extra]) == 0
    return out


def _blob(page: str) -> dict:
    found = re.search(r'<script type=application/json id=data>(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def test_agreement_and_oracle_by_hand():
    right_a = [True, False, True, True, False, True, True]
    right_b = [False, False, True, False, False, False, True]
    assert pairs(["A", "B"], [right_a, right_b])["only"] == [[0, 3], [0, 0]]

    class T:
        def __init__(self, dialog):
            self.dialog = dialog
    turns = [T(0)] * 3 + [T(1)] * 4
    found = oracle([right_a, right_b], turns)
    assert (found["correct"], found["responses"], found["dialogs_correct"]) == (5, 7, 0)
    assert oracle([right_a, [True] * 7], turns)["per_dialog"] == 1.0


def test_entity_f1_by_slot_by_hand():
    class Lookup:
        slots = {"thai": "R_cuisine", "north": "R_location", "south": "R_location", "cheap": "R_price"}

        def slot(self, token):
            return self.slots.get(token)

    class T:
        gold = "api_call thai north cheap"
    found = by_slot(["api_call thai south cheap"], [T()], [Lookup()])
    assert (found["food"]["tp"], found["food"]["f1"]) == (1, 1.0)
    assert (found["area"]["tp"], found["area"]["fp"], found["area"]["fn"], found["area"]["f1"]) == (0, 1, 1, 0.0)
    assert found["name"] == {"tp": 0, "fp": 0, "fn": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_the_page_is_one_file_with_its_data(inputs, tmp_path):
    page = _report(tmp_path).read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)      # nothing fetched when viewed
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page
    data = _blob(page)
    assert data["systems"] == ["A", "B"] and data["dialog_systems"] == ["S0", "S1"]
    assert len(data["strings"]) == len(set(data["strings"]))             # each text once
    turns = [t for d in data["dialogs"] for t in d[2]]
    assert [t[4] for t in turns] == [1, 0, 3, 1, 0, 1, 3]                # bit 0: A right, bit 1: B right
    assert [data["strings"][t[5][0]] for t in turns] == A
    assert [d[0] for d in data["dialogs"]] == [1, 2] and [d[1] for d in data["dialogs"]] == [0, 1]
    # the summary reads without JavaScript: every figure and the oracle are in the HTML
    assert "71.43%" in page and "28.57%" in page                          # 5/7 and 2/7 per response
    assert "Oracle of all" in page and "(5/7)" in page
    assert _report(tmp_path).read_text() == page                          # byte-identical


def test_bad_input_is_one_line_and_writes_nothing(inputs, tmp_path, capsys):
    out = tmp_path / "r.html"
    base = ["report", "--data", str(tmp_path / "tst.txt"), "--system", f"A={tmp_path / 'a.txt'}", "--out", str(out)]
    (tmp_path / "short.txt").write_text("hello\n")
    cases = [
        (base + ["--baseline", "Z"], "--baseline Z: no such system (given: A)"),
        (base + ["--model", f"Z={tmp_path}"], "--model Z: no --system of that name"),
        (base[:-1] + [str(tmp_path / "r.txt")], "--out: give a file ending .html"),
        (base + ["--system", "B"], "--system 'B': give NAME=PATH"),
        (base + ["--system", f"B={tmp_path / 'short.txt'}"], "short.txt has 1 line, "),
    ]
    for argv, message in cases:
        assert run(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
        assert not out.exists()


# ---------------------------------------------------------------- in a browser

def _driver():
    """A headless Chromium under chromedriver, or a skip (a failure under DSTC2CONV_REQUIRE_DATA=1)."""
    missing = [p for p in ("/usr/bin/chromium", "/usr/bin/chromedriver") if not os.path.exists(p)]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    if missing:
        why = f"no browser to test the report in: {', '.join(missing)} missing (apt-get install chromium chromium-driver)"
        if os.environ.get("DSTC2CONV_REQUIRE_DATA") == "1":
            pytest.fail(why + " and DSTC2CONV_REQUIRE_DATA=1")
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1600"):
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def _shown(driver, expected: int) -> int:
    """The count of turns shown, once it is ``expected`` (the search box redraws when
    typing pauses), or after 5 s."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def count(d) -> int:
        return int(d.find_element(By.ID, "shown").get_attribute("data-turns"))
    try:
        WebDriverWait(driver, 5).until(lambda d: count(d) == expected)
    except TimeoutException:
        pass
    return count(driver)


def test_the_page_in_a_browser(inputs, tmp_path, capsys):
    from_model = tmp_path / "model"
    assert run(["train", "--system", "memn2n", "--train", inputs["trn"], "--dev", inputs["dev"], "--model",
                str(from_model), "--quiet"]) == 0
    assert run(["predict", "--model", str(from_model), "--data", inputs["tst"], "--out", str(tmp_path / "m.txt"),
                "--quiet"]) == 0
    capsys.readouterr()
    page = _report(tmp_path, "--system", f"M={tmp_path / 'm.txt'}", "--model", f"M={from_model}")
    driver = _driver()
    try:
        _drive(driver, page, len(_blob(page.read_text())["attention"]["M"]["turns"]))
    finally:
        driver.quit()


def _drive(driver, page: Path, attention: int) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(page.as_uri())
    assert _shown(driver, 7) == 7
    kind = Select(driver.find_element(By.ID, "f-kind"))
    kind.select_by_visible_text("closing")
    assert _shown(driver, 2) == 2
    kind.select_by_visible_text("all")
    Select(driver.find_element(By.ID, "f-dsys")).select_by_visible_text("S1")
    assert _shown(driver, 4) == 4
    Select(driver.find_element(By.ID, "f-dsys")).select_by_visible_text("all")
    driver.find_element(By.ID, "f-wrong").click()
    Select(driver.find_element(By.ID, "f-wrong-in")).select_by_visible_text("A")
    assert _shown(driver, 2) == 2                                       # A's api_call and ask_area
    driver.find_element(By.ID, "f-wrong").click()
    driver.find_element(By.ID, "f-search").send_keys("south")
    assert _shown(driver, 2) == 2                                       # A's "api_call thai south cheap", user "south"
    driver.find_element(By.ID, "f-search").send_keys("zzz")
    assert _shown(driver, 0) == 0
    driver.find_element(By.ID, "f-search").clear()
    driver.find_element(By.ID, "f-disagree").click()
    data = _blob(page.read_text())
    differ = sum(1 for d in data["dialogs"] for t in d[2] if len(set(t[5])) > 1)
    assert _shown(driver, differ) == differ
    driver.get(page.as_uri() + "#dialog-2")
    opened = driver.find_element(By.ID, "dialog-2")
    assert len(opened.find_elements(By.CSS_SELECTOR, ".turn")) == 4
    if attention:
        driver.get(page.as_uri())
        buttons = driver.find_elements(By.CSS_SELECTOR, "button.att-button")
        assert len(buttons) == attention
        buttons[0].click()
        rows = driver.find_elements(By.CSS_SELECTOR, ".att tr")
        assert len(rows) >= 2
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, severe


def test_a_model_folder_gives_its_curve_and_attention(inputs, tmp_path, capsys):
    from dstc2conv.report.models import view
    from dstc2conv.task6.turns import read_turns

    folder = tmp_path / "model"
    assert run(["train", "--system", "memn2n", "--train", inputs["trn"], "--dev", inputs["dev"], "--model", str(folder),
                "--quiet", "--set", "hops=2"]) == 0
    capsys.readouterr()
    turns = read_turns(inputs["tst"])
    wrong = [True, False, True, True, False, False, True]          # turns 1, 4 and 5 "wrong"
    found = view("M", str(folder), turns, wrong, limit=2)
    assert sorted(found.attention) == [1, 4]                        # the first 2 wrong turns only
    assert found.curve and [e["epoch"] for e in found.curve] == list(range(1, len(found.curve) + 1))
    at = found.attention[4]      # dialog 2, turn 2: the memory holds its first exchange (user, then bot)
    assert [who for who, _ in at["slots"]] == ["user", "bot"] and at["slots"][1][1] == toy.WELCOME
    assert len(at["hops"]) == 2 and all(sum(h) == pytest.approx(1, abs=0.01) for h in at["hops"])
