"""`--help` / `-h` for the project's Python scripts: prints the calling
script's docstring (what it does and its usage) on stdout and exits 0,
before the script reads an argument or writes a file (docs/OUTPUTS.md,
"Exit codes")."""
import sys


def answer_help(doc):
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        print(doc.strip())
        sys.exit(0)
