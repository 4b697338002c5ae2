"""``python -m dstc2conv``: the command line."""
from .cli import main

if __name__ == "__main__":
    main()
