"""``python -m topics``: the ``topics`` command (:func:`topics.cli.main`)."""

import sys

from topics.cli import main

if __name__ == "__main__":
    sys.exit(main())
