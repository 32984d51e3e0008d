"""``python -m mainentity``: the ``mainentity`` command (:func:`mainentity.cli.main`)."""

import sys

from mainentity.cli import main

if __name__ == "__main__":
    sys.exit(main())
