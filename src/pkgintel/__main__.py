"""`python -m pkgintel` runs the command-line interface."""

from pkgintel.entry import main

main()
