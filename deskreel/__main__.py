"""`python -m deskreel`: the same as the `deskreel` command."""

from .cli import main

main()
