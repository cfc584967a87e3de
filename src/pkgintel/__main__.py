"""`python -m pkgintel` runs the command-line interface."""

from pkgintel.cli import main

main()
