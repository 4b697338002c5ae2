"""Three tiny task-6 files written by hand (a training, a dev and a test file), for the
tests of the systems and their commands: each system fits them in a second."""
from __future__ import annotations

from pathlib import Path

WELCOME = "Hello , welcome to the Cambridge restaurant system . How may I help you ?"
TRN = f"""\
1 <SILENCE>\t{WELCOME}
2 cheap thai food\tWhat part of town do you have in mind?
3 north\tapi_call thai north cheap
4 thank you bye\tyou are welcome

1 <SILENCE>\t{WELCOME}
2 expensive food in the south\tWhat kind of food would you like?
3 any\tapi_call R_cuisine south expensive
4 bye\tyou are welcome

"""
DEV = f"""\
1 <SILENCE>\t{WELCOME}
2 cheap food in the north\tWhat kind of food would you like?
3 thai\tapi_call thai north cheap
4 bye\tyou are welcome

"""
TST = f"""\
1 <SILENCE>\t{WELCOME}
2 cheap thai food in the north\tapi_call thai north cheap
3 thank you good bye\tyou are welcome

1 <SILENCE>\t{WELCOME}
2 i want expensive food\tWhat part of town do you have in mind?
3 south\tWhat kind of food would you like?
4 bye\tyou are welcome

"""


def write(folder: Path) -> dict[str, str]:
    """The three files written in ``folder`` (trn.txt, dev.txt, tst.txt): their paths by name."""
    paths = {}
    for name, text in (("trn", TRN), ("dev", DEV), ("tst", TST)):
        (folder / f"{name}.txt").write_text(text)
        paths[name] = str(folder / f"{name}.txt")
    return paths
