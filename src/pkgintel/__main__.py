"""`python -m pkgintel` runs the command-line interface."""

from pkgintel.cli.main import main

main()
