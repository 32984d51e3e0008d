"""Messages that would repeat once per site or per page, logged once as a count with a few examples.

A run over hundreds of sites or pages says a kind of warning (a site without links between its pages, a
page that failed to render, a renderer attempt that failed) once, with how many it concerns and the first
few of them; ``-v`` (the ``DEBUG`` level) lists every one of them below that line.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

#: How many of them a summary names.
N_EXAMPLES = 3


class RepeatedMessage:
    """The occurrences of one kind of message, collected and logged once (:meth:`log`).

    Parameters
    ----------
    logger : logging.Logger
        Where the message goes.
    summary : str
        What the occurrences have in common, with ``{n}`` for their number and optionally ``{total}``
        (``"{n} of {total} sites have no links between their pages"``); the examples go at its end, or
        where it says ``{examples}``.
    level : int, default logging.WARNING
        Level of the summary (or of the one message when there is one).
    n_examples : int, default :data:`N_EXAMPLES`
        How many of them the summary names.
    summary_for_one : bool, default False
        Say the summary for a single occurrence too (naming it, its message at ``DEBUG``),
        so that the kind has one wording whatever the count; by default one occurrence is said as its
        own message.

    Examples
    --------
    >>> import logging, sys
    >>> log = logging.getLogger("doc.repeated")
    >>> log.propagate, log.handlers = False, [logging.StreamHandler(sys.stdout)]
    >>> tally = RepeatedMessage(log, "{n} of {total} sites have no links between their pages")
    >>> for site in ("a.example", "b.example", "c.example", "d.example"):
    ...     tally.add(site, f"site {site}: 0 of 2 pages have incoming anchor texts")
    >>> tally.log(total=9)
    4 of 9 sites have no links between their pages (e.g. a.example, b.example, c.example; -v lists all 4)
    >>> one = RepeatedMessage(log, "{n} pages failed")
    >>> one.add("s/a.html", "render failed for s/a.html: timed out after 30 s")
    >>> one.log()
    render failed for s/a.html: timed out after 30 s
    >>> tally = RepeatedMessage(log, "{n} of {total} sites have no links between their pages", summary_for_one=True)
    >>> tally.add("a.example", "site a.example: 0 of 2 pages have incoming anchor texts")
    >>> tally.log(total=1)
    1 of 1 sites have no links between their pages (a.example)
    """

    def __init__(self, logger: logging.Logger, summary: str, *, level: int = logging.WARNING,
                 n_examples: int = N_EXAMPLES, summary_for_one: bool = False):
        if n_examples < 1:
            raise ValueError(f"n_examples must be >= 1; got {n_examples}")
        self.logger = logger
        self.summary = summary
        self.level = level
        self.n_examples = n_examples
        self.summary_for_one = summary_for_one
        self.names: list[str] = []
        self.messages: list[str] = []

    def __len__(self) -> int:
        return len(self.messages)

    def add(self, name: str, message: str) -> None:
        """Record one occurrence: ``name`` (a site id, a page's ``site/path``) for the summary's examples,
        ``message`` its whole line (logged alone when it is the only one, or at ``DEBUG`` below the summary)."""
        self.names.append(name)
        self.messages.append(message)

    def log(self, total: int | None = None) -> None:
        """Log what was recorded, then forget it: nothing for none, the message itself for one (unless
        :attr:`summary_for_one`), else the summary with the first :attr:`n_examples` distinct names
        ("e.g." before them only when some are left out) and, when ``DEBUG`` is on, every message.

        Parameters
        ----------
        total : int, optional
            What the occurrences are counted out of (``{total}`` in the summary).
        """
        names, messages = self.names, self.messages
        self.names, self.messages = [], []
        if len(messages) == 1 and not self.summary_for_one:
            self.logger.log(self.level, "%s", messages[0])
            return
        if not messages:
            return
        distinct = list(dict.fromkeys(names))  # a page tried twice is named once
        more = f"; -v lists all {len(names)}" if len(distinct) > self.n_examples else ""
        examples = f"({'e.g. ' * bool(more)}{', '.join(distinct[:self.n_examples])}{more})"  # all named: no e.g.
        summary = self.summary if "{examples}" in self.summary else self.summary + " {examples}"
        self.logger.log(self.level, "%s", summary.format(n=len(messages), total=total, examples=examples))
        for message in messages:
            self.logger.debug("%s", message)


@contextmanager
def repeated_message(logger: logging.Logger, summary: str, *, level: int = logging.WARNING,
                     total: int | None = None) -> Iterator[RepeatedMessage]:
    """A :class:`RepeatedMessage` logged when the block ends (also when it raises, or is interrupted).

    >>> import logging, sys
    >>> log = logging.getLogger("doc.repeated")
    >>> log.propagate, log.handlers = False, [logging.StreamHandler(sys.stdout)]
    >>> with repeated_message(log, "{n} pages have no prediction") as failed:
    ...     failed.add("s/a.html", "no prediction for s/a.html: empty page")
    ...     failed.add("s/b.html", "no prediction for s/b.html: empty page")
    2 pages have no prediction (s/a.html, s/b.html)
    """
    tally = RepeatedMessage(logger, summary, level=level)
    try:
        yield tally
    finally:
        tally.log(total)
