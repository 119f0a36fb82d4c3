"""``python -m logsleuth``."""

from .cli import main

main()
