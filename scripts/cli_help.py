"""`--help` / `-h` for the project's Python scripts: prints the calling
script's docstring (what it does and its usage) on stdout and exits 0,
before the script reads an argument or writes a file (docs/OUTPUTS.md,
"Exit codes")."""
import os
import sys


def answer_help(doc):
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        try:
            print(doc.strip())
            sys.stdout.flush()
        except BrokenPipeError:
            # `--help | head` closed the pipe: the reader has what it wanted,
            # so no traceback (and no second error when Python flushes at exit).
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
