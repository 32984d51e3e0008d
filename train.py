"""Train a main-entity model from a YAML config: ``python train.py configs/sample-msrbfn.yaml``.

The same as ``mainentity train CONFIG``; writes ``runs/<name>/`` with the model and its test report.
"""

import sys

from mainentity.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
