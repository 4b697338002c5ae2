"""The bAbI dialog release reader: the unpacked folder, the archive, and hostile archives."""
from __future__ import annotations

import io
import os
import tarfile
import tempfile

import pytest

from dstc2conv.babi import release
from dstc2conv.babi.release import Release, TaskFiles, open_release
from dstc2conv.errors import Dstc2ConvError

DIALOG = "1 hi\thello what can i help you with today\n2 <SILENCE>\tapi_call thai paris two cheap\n\n"
# a tiny release written here: tasks 1 and 2 (task 2 without its OOV test file), task 6's train file,
# the shared candidates and KB, and a file that is none of the release's
FILES = {
    "dialog-babi-task1-API-calls-trn.txt": DIALOG,
    "dialog-babi-task1-API-calls-dev.txt": DIALOG,
    "dialog-babi-task1-API-calls-tst.txt": DIALOG,
    "dialog-babi-task1-API-calls-tst-OOV.txt": DIALOG,
    "dialog-babi-task2-API-refine-trn.txt": DIALOG,
    "dialog-babi-task2-API-refine-dev.txt": DIALOG,
    "dialog-babi-task2-API-refine-tst.txt": DIALOG,
    "dialog-babi-task6-dstc2-trn.txt": DIALOG,
    "dialog-babi-candidates.txt": "1 api_call thai paris two cheap",
    "dialog-babi-kb-all.txt": "1 resto_paris_cheap_thai_2stars R_cuisine\tthai",
    "README.txt": "not a file of the release's tasks\n",
}


def _folder(root):
    folder = root / "dialog-bAbI-tasks"
    folder.mkdir(parents=True)
    for name, text in FILES.items():
        (folder / name).write_text(text)
    return folder


def _tar(path, members):
    """A tar.gz of (TarInfo, bytes or None)."""
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return path


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _expected(folder) -> dict:
    def at(name):
        return None if name is None else os.path.join(folder, name)
    t1 = {k: at(v) for k, v in release.names("T1").items()}
    t2 = {k: at(v) for k, v in release.names("T2").items()}
    shared = {"candidates": at("dialog-babi-candidates.txt"), "kb": at("dialog-babi-kb-all.txt")}
    return {"T1": TaskFiles("T1", **t1, **shared),
            "T2": TaskFiles("T2", **{**t2, "oov_test": None}, **shared),
            "T6": TaskFiles("T6", at("dialog-babi-task6-dstc2-trn.txt"), None, None, None, None, None)}


def test_the_unpacked_folder_or_a_folder_holding_it(tmp_path):
    folder = _folder(tmp_path / "unpacked")
    for given in (folder, tmp_path / "unpacked"):
        with open_release(given) as found:
            assert found == Release(str(given), _expected(str(folder)))
            assert list(found.tasks) == ["T1", "T2", "T6"]          # T1..T6 order, only tasks with a file


def test_the_archive_is_extracted_to_a_temporary_folder_removed_after(tmp_path):
    folder = _folder(tmp_path / "unpacked")
    archive = tmp_path / "dialog_babi.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="dialog-bAbI-tasks")
    with open_release(archive) as found:
        assert found.source == str(archive) and list(found.tasks) == ["T1", "T2", "T6"]
        t1 = found.tasks["T1"]
        where = os.path.dirname(t1.train)
        assert found.tasks == _expected(where)
        assert open(t1.train).read() == DIALOG and open(t1.kb).read() == FILES["dialog-babi-kb-all.txt"]
        assert sorted(os.listdir(where)) == sorted(n for n in FILES if n != "README.txt")   # only the release's
    assert not os.path.exists(where)


def test_a_release_missing_tasks_and_what_is_no_release(tmp_path, capsys):
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "dialog-babi-task3-options-dev.txt").write_text(DIALOG)
    with open_release(tmp_path / "only") as found:
        assert found.tasks == {"T3": TaskFiles("T3", None, str(tmp_path / "only" / "dialog-babi-task3-options-dev.txt"),
                                               None, None, None, None)}
    (tmp_path / "empty").mkdir()
    with pytest.raises(Dstc2ConvError, match="no published bAbI dialog file here nor in a dialog-bAbI-tasks/ folder"):
        with open_release(tmp_path / "empty"):
            pass
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    with pytest.raises(Dstc2ConvError) as exc:
        with open_release(text):
            pass
    assert str(exc.value).startswith(f"{text}: not a readable tar archive (")
    with pytest.raises(Dstc2ConvError, match="no such file or folder"):
        with open_release(tmp_path / "nowhere.tgz"):
            pass
    other = _tar(tmp_path / "other.tar.gz", [_file("x/readme.txt", b"hi\n")])
    with pytest.raises(Dstc2ConvError, match="no published bAbI dialog file in this archive"):
        with open_release(other):
            pass


@pytest.mark.parametrize("member, why", [
    ("../dialog-babi-task1-API-calls-trn.txt", "a path outside the archive's folder (absolute, or with '..')"),
    ("/tmp/dialog-babi-task1-API-calls-trn.txt", "a path outside the archive's folder (absolute, or with '..')"),
    ("symlink", "a link, where the release has a file"),
    ("hardlink", "a link, where the release has a file"),
    ("directory", "not a plain file, where the release has a file"),
    ("twice", "a second member of this name"),
    ("large", "1,025 bytes, more than the 1,024 a file of the release may have (the largest has under 5 MB)"),
])
def test_a_hostile_member_is_refused(tmp_path, monkeypatch, member, why):
    monkeypatch.setattr(release, "MAX_MEMBER", 1024)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    name = "dialog-bAbI-tasks/dialog-babi-task1-API-calls-trn.txt"
    members = [_file("dialog-bAbI-tasks/dialog-babi-task1-API-calls-dev.txt", DIALOG.encode())]
    if member in ("symlink", "hardlink", "directory"):
        info = tarfile.TarInfo(name)
        info.type = {"symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE, "directory": tarfile.DIRTYPE}[member]
        info.linkname = "/etc/passwd"
        members.append((info, None))
    elif member == "twice":
        members += [_file(name, DIALOG.encode()), _file("elsewhere/dialog-babi-task1-API-calls-trn.txt", b"1 x\ty\n")]
    elif member == "large":
        members.append(_file(name, b"x" * 1025))
    else:
        members.append(_file(member, DIALOG.encode()))
        name = member
    archive = _tar(tmp_path / "hostile.tar.gz", members)
    with pytest.raises(Dstc2ConvError) as exc:
        with open_release(archive):
            pass
    shown = "elsewhere/dialog-babi-task1-API-calls-trn.txt" if member == "twice" else name
    assert str(exc.value) == f"{archive}: the member {shown} is refused: {why}"
    assert not os.listdir(tmp_path / "tmp")             # nothing extracted is left
