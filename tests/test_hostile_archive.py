"""Hostile input, by class: regular expressions bounded in size before they are compiled
and in time over a whole run; DSTC2 tarballs whose headers claim more than the member
limit (every header kind), whose header checksum is damaged, or that hold two archives;
and one verdict on a call's JSON whatever its bytes.

Tarballs are made here from the shipped sample, as ``test_hostile`` makes them.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import random
import tarfile

import pytest
from conftest import ONTOLOGY, SAMPLE, write_rule_files
from test_hostile import RULES, SESSION, _build_refused, _limited, _one_error, _tarball

from dstc2conv.cli import run
from dstc2conv.dstc2.calls import parse_call
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.limits import MAX_MEMBER, MAX_REGEX_SIZE, MAX_REGEX_TOTAL, regex_size
from dstc2conv.systems.rules import conditions

# ---------------------------------------------------------------- regular expressions


def _rules_with(patterns) -> str:
    return RULES + "".join(f"  - id: rx{i}\n    when: {{user_regex: {json.dumps(p)}}}\n    say: hello\n"
                           for i, p in enumerate(patterns))


@pytest.mark.parametrize("pattern, written", [
    ("abc", 3), ("(ab){3}c", 16), ("a{3}", 6), ("x(){3}", 12), ("(|){2}", 9), ("a{2,4}", 9), ("a{,3}", 7),
    ("(?x)a{1 0}", 55), ("[a-z]{2}", 13), (r"\d{3}", 9),
])
def test_a_regular_expression_is_measured_written_out(pattern, written):
    assert regex_size(pattern) == written


def test_the_size_of_a_regular_expression_is_never_below_its_length_or_its_repeats():
    """Whatever the pattern, every character counts, and a counted repeat at least
    multiplies what it repeats: an empty group is not free, spaces do not hide a count."""
    rng = random.Random(7)
    parts = ["a", "()", "(|)", "(?:", ")", "|", "[ab]", r"\.", " ", "{2}", "{3,5}", "{ 4 }", "(?x)", "*", "#"]
    for _ in range(2000):
        pattern = "".join(rng.choice(parts) for _ in range(rng.randint(1, 12)))
        assert regex_size(pattern) >= len(pattern), pattern
    for body in ["", "|", "a", "()", "(?:)", " "]:
        for count in (1000, 10 ** 6):
            assert regex_size(f"x({body}){{{count}}}") >= count, body


HOSTILE = ["x(|){1000000}", "x(){20000}", "(?x)(ab){9 9 9 9 9}", "()" * 3000, "(?:(){50}){50}",
           "a{4294967294}", "(?:a{1000}|b{1000})(?:c{100}){10}"]


@pytest.fixture
def compiled(monkeypatch) -> list:
    """The sources given to ``regex.compile`` while the test runs."""
    import regex

    seen, compile_ = [], regex.compile
    monkeypatch.setattr(regex, "compile", lambda source, *a, **k: seen.append(source) or compile_(source, *a, **k))
    return seen


def test_a_regular_expression_too_large_is_refused_before_it_is_compiled(tmp_path, compiled, capsys):
    """In a subprocess under a memory limit: no segmentation fault; in this one: none of
    them given to the compiler (which takes 30 s or more on some)."""
    paths = write_rule_files(tmp_path, _rules_with(HOSTILE), ONTOLOGY, "1 hi\tWelcome .\n")
    result = _limited(["rules", "check", "--rules", paths[0]], timeout=600)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.count("regular expression too large") == len(HOSTILE), result.stderr[-2000:]
    assert run(["rules", "check", "--rules", paths[0]]) == 2
    assert capsys.readouterr().err.count("regular expression too large") == len(HOSTILE)
    assert compiled and not [source for source in compiled if any(p in source for p in HOSTILE)]


def test_the_regular_expressions_of_a_file_are_bounded_in_all(tmp_path, capsys):
    each = "()" * (MAX_REGEX_SIZE // 2 - 3)          # under the bound, each of them (with x000)
    count = MAX_REGEX_TOTAL // regex_size(each) + 1
    rules, _ = write_rule_files(tmp_path, _rules_with([each + f"x{i:03d}" for i in range(count)]), ONTOLOGY,
                                "1 hi\tWelcome .\n")
    assert run(["rules", "check", "--rules", rules]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"regular expressions too large in all: more than {MAX_REGEX_TOTAL:,} " \
        "characters in one rule file with their counted repeats written out (rx" in err, err[-2000:]


@pytest.mark.parametrize("where", ["words", "pattern", "ontology"])
def test_words_patterns_and_ontologies_are_bounded_as_regular_expressions(tmp_path, capsys, compiled, where):
    """They are matched by regular expressions made from them, bounded as those of a rule
    file: refused before they are compiled."""
    many = [f"w{i:06d}" for i in range(MAX_REGEX_TOTAL // 8)]
    rules, ontology = RULES, ONTOLOGY
    if where == "words":
        rules = RULES.replace("{missing: food}", "{user_words: {any: [%s]}}" % ", ".join(many))
    elif where == "pattern":
        rules = RULES.replace("ask_food: Which food?", "ask_food: " + " ".join(many))
    else:
        ontology = ONTOLOGY.replace("food: [thai, noodles]", "food: [thai, noodles, %s]" % ", ".join(many))
    rules, _ = write_rule_files(tmp_path, rules, ontology, "1 hi\tWelcome .\n")
    assert run(["rules", "check", "--rules", rules]) == 2
    err = capsys.readouterr().err
    assert not [source for source in compiled if many[-1] in source]
    expected = {"words": "regular expression too large: the expression of the words has more than",
                "pattern": "regular expression too large: pattern 'ask_food' has more than",
                "ontology": "the values and synonyms take more than 50,000 characters as one regular expression"}
    assert expected[where] in err, err[-2000:]


def test_the_probes_of_a_file_are_bounded_in_time(tmp_path, capsys, monkeypatch):
    """The probes of every regular expression share the file's time: once it is spent,
    one problem, naming the rule whose probe spent it."""
    from dstc2conv.systems.rules import ruleset

    monkeypatch.setattr(ruleset, "PROBE_SECONDS", 1e-9)
    clock = iter(range(10**6))      # the CPU clock moves at each look, however coarse the machine's
    monkeypatch.setattr(conditions.time, "thread_time", lambda: next(clock) / 100)
    rules, _ = write_rule_files(tmp_path, _rules_with(["hello", "there", "again"]), ONTOLOGY, "1 hi\tWelcome .\n")
    assert run(["rules", "check", "--rules", rules]) == 2
    err = capsys.readouterr().err
    assert err == (f"dstc2conv: error: {rules}:14: regular expression too slow: the rule file's regular "
                   "expressions took more than 1e-09 s in all on the probe texts (rx0)\n")


def test_the_regular_expressions_of_a_run_are_bounded_in_time(tmp_path, capsys, monkeypatch):
    """Each text under the per-text limit, but the run stopped at its total, naming the
    rule. The CPU clock the budget reads moves 0.01 s at each look, so that each search
    takes 0.01 s whatever the machine: 400 texts take 4 s, past the 1 s allowed."""
    clock = iter(range(10**6))
    monkeypatch.setattr(conditions.time, "thread_time", lambda: next(clock) / 100)
    monkeypatch.setattr(conditions, "RUN_SECONDS", 1.0)
    rules = RULES.replace("{missing: food}", "{user_regex: '(ab|ab)+$'}")
    dialog = "".join(f"1 <SILENCE>\tWelcome .\n2 t{i} {'ab' * 13}!\tWhich food?\n\n" for i in range(400))
    rules, data = write_rule_files(tmp_path, rules, ONTOLOGY, dialog)
    error = _one_error(capsys, ["rules", "score", "--rules", rules, "--data", data, "--quiet"])
    assert error == (f"dstc2conv: error: {rules}:11: regular expressions took more than 1 s in all on this data "
                     "(this one was searching) (ask-food)")


# ---------------------------------------------------------------- tar headers

COMPRESS = {".tar": lambda data: data, ".tar.gz": lambda data: gzip.compress(data, 1), ".tar.bz2": bz2.compress,
            ".tar.xz": lambda data: lzma.compress(data, preset=0)}
KINDS = {b"L": "GNU long-name", b"K": "GNU long-link", b"x": "pax extended", b"X": "pax extended",
         b"g": "pax global"}


def _plain(tmp_path) -> bytes:
    return open(_tarball(tmp_path / "sample.tar"), "rb").read()


def _members(data: bytes) -> list[tuple[int, bytes, int]]:
    """(offset, name, size) of each header of a plain tar, up to its end."""
    found, at = [], 0
    while data[at:at + 512].strip(b"\0"):
        size = int(data[at + 124:at + 136].split(b"\0")[0].strip() or b"0", 8)
        found.append((at, data[at:at + 100].split(b"\0")[0], size))
        at += 512 + -(-size // 512) * 512
    return found


def _end(data: bytes) -> int:
    """The offset of the end-of-archive blocks of a plain tar."""
    at, _, size = _members(data)[-1]
    return at + 512 + -(-size // 512) * 512


def _header(kind: bytes, size: int) -> bytes:
    info = tarfile.TarInfo("././@LongLink")
    info.type, info.size = kind, size
    return info.tobuf(tarfile.USTAR_FORMAT)


CASES = [(kind, suffix) for kind in KINDS for suffix in COMPRESS]


@pytest.mark.parametrize("kind, suffix", CASES)
def test_every_header_kind_is_held_to_the_member_limit(tmp_path, capsys, kind, suffix):
    """A metadata header claiming past the limit (by one byte, or by 1.2 GB), first or
    between members, is refused by offset before its data is read."""
    rng = random.Random(f"{kind}{suffix}")
    plain = _plain(tmp_path)
    members = _members(plain)
    at = rng.choice([0, members[rng.randrange(1, len(members))][0]])
    claim = rng.choice([MAX_MEMBER + 1, 1_200_000_000, rng.randrange(MAX_MEMBER + 1, 8 ** 11)])
    raw = tmp_path / f"hostile{suffix}"
    raw.write_bytes(COMPRESS[suffix](plain[:at] + _header(kind, claim) + b"\0" * (1 << 20) + plain[at:]))
    _build_refused(capsys, tmp_path, raw, f"{raw}: the {KINDS[kind]} header at byte {at} claims {claim:,} bytes, "
                   "more than the 16 MB")


@pytest.mark.parametrize("kind", [b"L", b"x", b"g"])
def test_metadata_headers_are_bounded_in_all(tmp_path, capsys, kind):
    """Headers each under the limit, over it together (before one member, or pax global
    headers in all)."""
    plain = _plain(tmp_path)
    part = MAX_MEMBER // 3 // 512 * 512 + 512        # three are past the limit
    chain = (_header(kind, part) + b"\0" * part) * 4
    raw = tmp_path / "chain.tar.gz"
    raw.write_bytes(gzip.compress(chain + plain, 1))
    _build_refused(capsys, tmp_path, raw, f"header at byte {2 * (512 + part)} claims {part:,} bytes with the")


def test_a_header_within_the_limits_is_read(tmp_path, capsys):
    """A GNU long name (of a member the build does not use) and pax records are read as before."""
    raw = _tarball(tmp_path / "gnu.tar.gz", [("data/" + "n" * 300 + "/README", b"hello")], fmt=tarfile.GNU_FORMAT)
    assert run(["build", "--split", "all", "--raw", raw, "--out", str(tmp_path / "out"), "--quiet"]) == 0


def test_small_metadata_headers_in_a_row_are_read(tmp_path, capsys):
    """Two pax headers before one member (the fast reader leaves them to tarfile): read."""
    plain = _plain(tmp_path)
    record = b"17 comment=hello\n"
    pax = (_header(b"x", len(record)) + record.ljust(512, b"\0")) * 2
    raw = tmp_path / "pax.tar.gz"
    raw.write_bytes(gzip.compress(pax + plain, 1))
    assert run(["build", "--split", "all", "--raw", str(raw), "--out", str(tmp_path / "out"), "--quiet"]) == 0


def test_a_sparse_member_is_refused(tmp_path, capsys):
    plain = _plain(tmp_path)
    at = _members(plain)[1][0]
    raw = tmp_path / "sparse.tar"
    raw.write_bytes(plain[:at] + _header(b"S", 0) + plain[at:])
    _build_refused(capsys, tmp_path, raw, f"a GNU sparse member at byte {at}")


def test_the_metadata_bound_holds_in_bounded_memory(tmp_path):
    raw = tmp_path / "big.tar.gz"
    raw.write_bytes(gzip.compress(_header(b"x", 1_200_000_000) + b"\0" * (12 << 20), 1))
    result = _limited(["build", "--split", "all", "--raw", str(raw), "--out", str(tmp_path / "o"), "--quiet"])
    assert result.returncode == 2 and "claims 1,200,000,000 bytes" in result.stderr, result.stderr[-2000:]


# ---------------------------------------------------------------- a damaged header, two archives

@pytest.mark.parametrize("byte", [150, 0, 124, 156, 300])
@pytest.mark.parametrize("suffix", [".tar", ".tar.gz", ".tar.xz"])
def test_a_damaged_header_is_corruption_not_the_end(tmp_path, capsys, byte, suffix):
    plain = bytearray(_plain(tmp_path))
    at, name, _ = next(m for m in _members(bytes(plain)) if m[1].endswith(f"{SESSION}/label.json".encode()))
    plain[at + byte] ^= 1
    raw = tmp_path / f"flipped{suffix}"
    raw.write_bytes(COMPRESS[suffix](bytes(plain)))
    for jobs in ("1", "2"):
        error = _build_refused(capsys, tmp_path, raw, f"the tar header at byte {at} (", "--partition", "random",
                               "--jobs", jobs)
        assert "is damaged (bad checksum)" in error


def test_two_archives_in_one_stream_are_refused(tmp_path, capsys):
    plain = _plain(tmp_path)
    other = open(_tarball(tmp_path / "other.tar", skip=("scripts/config/dstc2_train.flist",)), "rb").read()
    cases = {"cat.tar": plain + other, "cat.tar.gz": gzip.compress(plain + other, 1),
             "members.tar.gz": gzip.compress(plain, 1) + gzip.compress(other, 1),
             "lone-zero-block.tar": plain[:_end(plain)] + b"\0" * 512 + other}
    end = len(plain)
    for name, data in cases.items():
        raw = tmp_path / name
        raw.write_bytes(data)
        message = "a lone zero block" if name.startswith("lone") else \
            f"data after the end of the archive, at byte {end} of the tar stream: two archives in one stream"
        _build_refused(capsys, tmp_path, raw, message)


def test_padding_after_the_end_is_read_and_a_cut_end_refused(tmp_path, capsys):
    plain = _plain(tmp_path)
    padded = tmp_path / "padded.tar.gz"
    padded.write_bytes(gzip.compress(plain + b"\0" * 100_000, 1) + gzip.compress(b"\0" * 10240))
    assert run(["build", "--split", "all", "--raw", str(padded), "--out", str(tmp_path / "ok"), "--quiet"]) == 0
    capsys.readouterr()
    cut = tmp_path / "cut.tar"
    cut.write_bytes(plain[:_end(plain)])    # no end-of-archive blocks
    _build_refused(capsys, tmp_path, cut, "without the two zero blocks that end an archive")


# ---------------------------------------------------------------- one verdict on a call's JSON

def _sample(which: str) -> dict:
    return json.loads((SAMPLE / "data" / SESSION / which).read_text())


def _system_specific(value):
    def edit(log):
        log["system-specific"] = {"dialog-manager": value}
    return edit


def _unused(value: str):
    def edit(log):
        log["turns"][0]["input"]["live"]["asr-hyps"][0]["unused"] = "@@"
        log["@@raw"] = value
    return edit


def _score(value: str):
    def edit(log):
        log["turns"][0]["input"]["live"]["asr-hyps"][0]["score"] = "@@"
        log["@@raw"] = value
    return edit


def _encoded(log: dict, ascii_only: bool) -> bytes:
    raw = log.pop("@@raw", None)
    text = json.dumps(log, ensure_ascii=ascii_only)
    if raw is not None:
        text = text.replace('"@@"', raw)
    return text.encode("utf-8")


EDITS = {
    "dialog manager 10**30": _system_specific(10 ** 30),
    "dialog manager 2**63 - 1": _system_specific(2 ** 63 - 1),
    "dialog manager true": _system_specific(True),
    "dialog manager 1.0": _system_specific(1.0),
    "an unused number of 401 digits": _unused("1" + "0" * 400),
    "an unused 1e400": _unused("1e400"),
    "an unused -1.5E+400": _unused("-1.5E+400"),
    "an unused 1e-400": _unused("1e-400"),
    "an unused float of 320 digits": _unused("1" * 320 + ".5"),
    "an unused lone surrogate": _unused('"\\ud800"'),
    "a score of 401 digits": _score("1" + "0" * 400),
    "a score of 1e400": _score("1e400"),
    "a score of 300 digits": _score("1" * 300),
}


@pytest.mark.parametrize("asr", [False, True])
@pytest.mark.parametrize("edit", list(EDITS))
def test_a_call_has_one_verdict_whatever_its_bytes(edit, asr):
    """The same content, in ASCII, with a non-ASCII caller id, or with a slot value that
    is a number: accepted alike, with the same call, or refused alike."""
    label = (SAMPLE / "data" / SESSION / "label.json").read_bytes()
    verdicts = []
    for variant in ("ascii", "caller-id", "numeric slot"):
        log = _sample("log.json")
        EDITS[edit](log)
        if variant == "caller-id":
            log["caller-id"] = "caf\u00e9"
        if variant == "numeric slot":
            log["turns"][0]["output"]["dialog-acts"].append({"act": "inform", "slots": [["pricerange", 5]]})
        try:
            call = parse_call(SESSION, _encoded(log, variant != "caller-id"), label, "here", asr)
            verdicts.append(("built", call.dialog_manager, [t.hypotheses for t in call.turns],
                             [t.system_acts[:1] for t in call.turns]))
        except Dstc2ConvError as exc:
            verdicts.append(("refused", exc.path.rsplit("/", 1)[-1]))
    assert verdicts[0] == verdicts[1] == verdicts[2], verdicts


REFUSED = {  # edit: what the refusal says (with --user asr, which reads the scores, the scores' too)
    "dialog manager 10**30": "past 64 bits", "dialog manager true": "not a whole number",
    "dialog manager 1.0": "not a whole number", "an unused lone surrogate": "malformed JSON: no low surrogate",
}
REFUSED_ASR = {"a score of 401 digits": "score is too large a number", "a score of 1e400": "malformed JSON: number is infinity"}


@pytest.mark.parametrize("asr", [False, True])
@pytest.mark.parametrize("edit", list(EDITS))
def test_a_field_the_conversion_does_not_read_is_checked_as_json_only(edit, asr):
    """A number past a double's range, or text that is not UTF-8, in a field the build
    does not read changes nothing it writes: the call is read. The fields it reads are
    checked, and the JSON's syntax and escapes everywhere."""
    log = _sample("log.json")
    EDITS[edit](log)
    label = (SAMPLE / "data" / SESSION / "label.json").read_bytes()
    expected = REFUSED.get(edit) or (REFUSED_ASR.get(edit) if asr else None)
    if expected is None:
        assert parse_call(SESSION, _encoded(log, True), label, "here", asr).turns
    else:
        with pytest.raises(Dstc2ConvError, match=expected):
            parse_call(SESSION, _encoded(log, True), label, "here", asr)


@pytest.mark.parametrize("where, built", [("caller-id", True), ("transcript", False)])
def test_text_not_utf8_is_refused_where_it_is_read(where, built):
    log = _sample("log.json")
    if where == "caller-id":
        log["caller-id"] = "@@"
    else:
        log["turns"][0]["output"]["transcript"] = "@@"
    data = json.dumps(log).encode().replace(b'"@@"', b'"caf\xe9"')   # (Latin-1, not UTF-8)
    label = (SAMPLE / "data" / SESSION / "label.json").read_bytes()
    if built:
        assert parse_call(SESSION, data, label, "here").turns
    else:
        with pytest.raises(Dstc2ConvError, match="log.json: not UTF-8"):
            parse_call(SESSION, data, label, "here")


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_an_unused_member_claiming_more_than_any_tarball_holds_is_named(tmp_path, suffix):
    import io

    path = tmp_path / f"claim.tar{suffix}"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo("data/x/unused.bin")
        info.size = 0
        tar.addfile(info)
    raw = bytearray(buffer.getvalue())
    raw[124:136] = b"\x80" + (2 ** 62).to_bytes(11, "big")        # GNU base-256 size: 2**62 bytes
    raw[148:156] = b"        "
    raw[148:155] = f"{sum(raw[:512]):06o}\0".encode()
    data = bytes(raw)
    if suffix:
        data = gzip.compress(data)
    path.write_bytes(data)
    from dstc2conv.dstc2.members import CheckedHeader, TarDamage

    with pytest.raises(TarDamage, match=r"byte 0 \(data/x/unused.bin\) claims 4,611,686,018,427,387,904 bytes"):
        with tarfile.open(path, tarinfo=CheckedHeader) as tar:
            tar.getmembers()


@pytest.mark.parametrize("suffix", [".tar", ".tar.gz"])
def test_a_damaged_size_field_is_refused_in_one_line_with_the_header_quoted(capsys, tmp_path, suffix):
    """A member whose size field claims too little: the next header is read from the
    middle of its JSON, which is no header. The refusal is one line: what stood where the
    header's name should be is quoted with its escapes, and cut short."""
    import io

    log = json.dumps({"turns": [{"input": {"x": i}} for i in range(60)]}, indent=2).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in ((f"data/{SESSION}/log.json", log), (f"data/{SESSION}/label.json", b"{}")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    raw = bytearray(buffer.getvalue())
    raw[124:136] = b"00000000001\0"                    # 1 byte, where the log has 1,600 or so
    raw[148:156] = b"        "
    raw[148:155] = f"{sum(raw[:512]):06o}\0".encode()
    path = tmp_path / f"damaged{suffix}"
    path.write_bytes(gzip.compress(bytes(raw)) if suffix == ".tar.gz" else bytes(raw))
    error = _build_refused(capsys, tmp_path, path, "the tar header at byte 1024 (' {\\n")
    assert "...) is damaged (invalid header)" in error and len(error) < 300, error


def test_shown_quotes_what_is_not_a_short_printable_name():
    from dstc2conv.errors import one_line, shown

    assert shown("data/Mar13_S0A0/voip-1/log.json") == "data/Mar13_S0A0/voip-1/log.json"
    assert shown("a\nb") == "'a\\nb'"
    assert shown("x" * 100, 10) == "'xxxxxxxxxx'..."
    assert one_line("a\nb\tc d \u00e9") == "a\\nb\\tc d \u00e9"
