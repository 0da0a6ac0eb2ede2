"""Entry point for ``python -m inspector``: the ``chunk-inspector`` command."""

from .cli import command

command()
