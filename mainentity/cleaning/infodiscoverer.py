"""InfoDiscoverer: informative and redundant content blocks by term entropy (Lin & Ho, KDD 2002).

A page is split into *content blocks*; the terms of each block are its words, tokenised with NLTK's
``wordpunct_tokenize``, lower-cased, stop words removed, Porter-stemmed. Over the n sampled pages of
a site, a term t with weight (frequency) w_tj in page j, normalised so that ``sum_j w_tj = 1``, has
the entropy ``H(t) = -sum_j w_tj log_n w_tj`` (0: the term is in one page only; 1: it is spread evenly
over all pages). A block's entropy is the mean entropy of its distinct terms; blocks at or below the
entropy threshold are *informative*, the others *redundant* and removed.

Content blocks. Lin & Ho split pages by ``<table>``. As a documented generalisation for pages laid
out with CSS, the block containers of :data:`PARTITION_TAGS` (div, section, article, aside, nav,
header, footer, main) split too: the content block of a text block is its nearest ancestor (or self)
in the partition set, read straight off its ``dom_path`` (no parse needed), or the whole page when it
has none. A block's terms are those of the text blocks it holds (so hidden text the renderer skips,
such as scripts, never counts).

Threshold. Chosen per site unless given. With ``F(h)`` the number of features (distinct terms of a
block, summed over the blocks of the sampled pages) in informative blocks at threshold h, the
threshold rises from 0 in steps of ``step``; Lin & Ho stop where ``F`` stops growing. Real sites rarely
give an exactly flat step (christianbook: F grows at every step, and doubles on the last one, where the
template blocks of entropy near 1 come in), so the exact rule is: the threshold is the end
``h_{k+1}`` of the step with the smallest relative growth ``(F(h_{k+1}) - F(h_k)) / F(h_k)`` among the
steps with ``F(h_k) > 0`` (the first on ties). Where ``F`` does stop growing, that is the first flat
step, and taking its end rather than its start keeps more of pages not in the sample. Entropies are
compared with a tolerance of 1e-9.

Limitation (inherent in the method): the entropy is that of a block's *terms*, so a block found on one
page only but written in the site's template words is redundant. On the sample shop the home page's
main entity is the site name (its logo link, on every page) and the journal index's heading "The
Harbor Lane Journal" is made of the logo's and the navigation's words (mean term entropy 0.99): both
are removed at the chosen threshold 0.9 (main entity kept on 40 of 42 pages, 40% of the blocks
removed). Keeping both needs a threshold near 1 (0.999 still loses the home page and removes only 2.5%
of the blocks); lower fixed thresholds do worse (0.5: 69%, 0.7: 74% kept). So no rule of the paper
reaches 99% there; see ``benchmarks/results/cleaning/``.

Conservative rules: a text block whose words are all stop words or punctuation has no term and is
kept; terms never seen in the sample have entropy 0 (they belong to this page only).

Stop words: ``/work/shared/nltk_data`` has no ``stopwords`` corpus and nothing can be downloaded, so
the package ships NLTK's English list (179 words) as :data:`STOP_WORDS`; no NLTK data is read, so the
cleaner never fails for missing data. The Porter stemmer and the tokeniser need no data.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

from nltk.stem.porter import PorterStemmer
from nltk.tokenize import wordpunct_tokenize
from sklearn.utils.validation import check_is_fitted

from mainentity.cleaning import SiteCleaner
from mainentity.cleaning.dom import path_steps
from mainentity.records import Document, TextBlock

#: Tags that split a page into content blocks (``table`` as in Lin & Ho; the rest for CSS layouts).
PARTITION_TAGS = ("table", "div", "section", "article", "aside", "nav", "header", "footer", "main")

#: NLTK's English stop words (the ``stopwords`` corpus, ``english``), shipped so no data is needed.
STOP_WORDS = frozenset("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he
him his himself she she's her hers herself it it's its itself they them their theirs themselves what
which who whom this that that'll these those am is are was were be been being have has had having do
does did doing a an the and but if or because as until while of at by for with about against between
into through during before after above below to from up down in out on off over under again further
then once here there when where why how all any both each few more most other some such no nor not
only own same so than too very s t can will just don don't should should've now d ll m o re ve y ain
aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't
ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren
weren't won won't wouldn wouldn't
""".split())

_WORD = re.compile(r"\w", re.UNICODE)
_TOLERANCE = 1e-9
_stemmer = PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer.stem(word)


def block_terms(text: str) -> list[str]:
    """Terms of a text: NLTK word/punct tokens, lower-cased, stop words and punctuation removed, stemmed.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    terms : list of str
        Porter stems in order of appearance (with repeats).

    Examples
    --------
    >>> block_terms("The Running of the Bulls: 2 photos")
    ['run', 'bull', '2', 'photo']
    """
    return [
        _stem(token)
        for token in wordpunct_tokenize(text.lower())
        if _WORD.search(token) and token not in STOP_WORDS
    ]


def term_entropies(page_terms: Sequence[Counter]) -> dict[str, float]:
    """Entropy of every term over the n pages of a site (Lin & Ho 2002, section 3.2).

    Parameters
    ----------
    page_terms : sequence of Counter, length n >= 2
        Term frequencies of each page.

    Returns
    -------
    entropy : dict of str to float in [0, 1]
        ``H(t) = -sum_j w_tj log_n w_tj`` with ``w_tj`` the frequency of t in page j divided by its
        total frequency over the n pages.

    Raises
    ------
    ValueError
        If fewer than two pages are given (log base n needs n >= 2).

    Examples
    --------
    >>> from collections import Counter
    >>> h = term_entropies([Counter(home=1, gatsby=2), Counter(home=1), Counter(home=1), Counter(home=1)])
    >>> h["home"], h["gatsby"]
    (1.0, 0.0)
    """
    n = len(page_terms)
    if n < 2:
        raise ValueError(f"term entropy needs at least 2 pages; got {n}")
    totals: dict[str, int] = defaultdict(int)
    c_log_c: dict[str, float] = defaultdict(float)
    for counts in page_terms:
        for term, count in counts.items():
            totals[term] += count
            c_log_c[term] += count * math.log(count)
    log_n = math.log(n)
    return {
        term: min(1.0, max(0.0, (math.log(total) - c_log_c[term] / total) / log_n))
        for term, total in totals.items()
    }


def content_block_key(dom_path: str, partition_tags: Iterable[str] = PARTITION_TAGS) -> str:
    """The ``dom_path`` of a text block's content block: its nearest partitioning ancestor (or self).

    Parameters
    ----------
    dom_path : str
        The text block's ``dom_path``.
    partition_tags : iterable of str
        Tags that split the page into content blocks.

    Returns
    -------
    key : str
        Path of the nearest element on ``dom_path`` whose tag is a partition tag, or ``""`` (the page
        outside every partition) when there is none.

    Raises
    ------
    ValueError
        If ``dom_path`` is malformed.

    Examples
    --------
    >>> content_block_key("html[0]/body[1]/table[0]/tbody[0]/tr[2]/td[1]/b[0]")
    'html[0]/body[1]/table[0]'
    >>> content_block_key("html[0]/body[1]/p[0]")
    ''
    """
    tags = set(partition_tags)
    steps = path_steps(dom_path)
    for end in range(len(steps), 0, -1):
        if steps[end - 1][0] in tags:
            return "/".join(f"{tag}[{i}]" for tag, i in steps[:end])
    return ""


def choose_threshold(
    block_entropies: Sequence[float], block_sizes: Sequence[int], step: float = 0.1
) -> tuple[float, list[tuple[float, int]]]:
    """Pick the entropy threshold where the features of informative blocks stop growing (Lin & Ho 2002).

    Parameters
    ----------
    block_entropies : sequence of float, length n_blocks
        Entropy of each content block (of all sampled pages).
    block_sizes : sequence of int, length n_blocks
        Features (distinct terms) of each block.
    step : float, default=0.1
        Increment of the threshold.

    Returns
    -------
    threshold : float
        ``h_{k+1}`` for the step k with the smallest relative growth ``(F(h_{k+1}) - F(h_k)) / F(h_k)``
        over the steps with ``F(h_k) > 0`` (first on ties), where ``F(h)`` sums the sizes of the blocks
        with entropy <= h; 1.0 when no block has a feature.
    curve : list of (float, int)
        ``(h, F(h))`` for ``h = 0, step, ..., 1``.

    Raises
    ------
    ValueError
        If the sequences differ in length or ``step`` is not in (0, 1].

    Examples
    --------
    Informative blocks near 0, template blocks near 1: F is flat from 0.2 to 0.3 (and on), so 0.3.

    >>> choose_threshold([0.0, 0.05, 0.15, 0.9, 1.0], [3, 2, 4, 5, 6])[0]
    0.3
    """
    if len(block_entropies) != len(block_sizes):
        raise ValueError(f"need one size per block; got {len(block_entropies)} and {len(block_sizes)}")
    if not 0.0 < step <= 1.0:
        raise ValueError(f"step must be in (0, 1]; got {step}")
    n_steps = round(1.0 / step)
    levels = [round(k * step, 10) for k in range(n_steps + 1)]
    pairs = list(zip(block_entropies, block_sizes, strict=True))
    curve = [(h, sum(size for entropy, size in pairs if entropy <= h + _TOLERANCE)) for h in levels]
    growths = [
        ((next_features - features) / features, next_h)
        for (_, features), (next_h, next_features) in zip(curve, curve[1:], strict=False)
        if features > 0
    ]
    if not growths:
        return 1.0, curve
    return min(growths, key=lambda growth: growth[0])[1], curve


class InfoDiscovererCleaner(SiteCleaner):
    """Remove the redundant content blocks of a site's pages by term entropy (Lin & Ho, KDD 2002).

    Parameters
    ----------
    threshold : float in [0, 1] or None, default=None
        Blocks with entropy above it are redundant. ``None`` chooses it per site
        (:func:`choose_threshold`).
    step : float, default=0.1
        Increment of the automatic threshold search.
    max_pages : int, default=200
        Pages sampled (seeded by ``random_state``) to learn the term entropies.
    partition_tags : tuple of str, default=PARTITION_TAGS
        Tags that split a page into content blocks.
    random_state : int, RandomState or None, default=None
        Seed of the page sample.

    Attributes
    ----------
    term_entropy_ : dict of str to float
        Entropy of each term seen in the sample.
    threshold_ : float
        The entropy threshold used (the parameter, or the one chosen).
    curve_ : list of (float, int)
        ``(h, F(h))`` of the threshold search over the sample.
    block_stats_ : list of dict
        Per content-block path in the sample: ``path``, ``pages``, ``entropy`` (mean over pages),
        ``redundant`` (share of pages where it was redundant), ``text`` (a sample); for the report.
    (and those of :class:`~mainentity.cleaning.SiteCleaner`)

    References
    ----------
    .. [1] S.-H. Lin, J.-M. Ho (2002), "Discovering informative content blocks from Web documents",
       KDD, sections 3-4.

    Examples
    --------
    >>> from mainentity.records import Page, RenderedPage, TextBlock
    >>> def doc(i, title):
    ...     blocks = (TextBlock("Home Books Music", "a", "html[0]/body[1]/nav[0]/a[0]", 16, 400, False,
    ...                         0, 0, 100, 20),
    ...               TextBlock(title, "h1", "html[0]/body[1]/div[1]/h1[0]", 32, 700, True, 0, 40, 300, 40))
    ...     return Document(Page("s", f"{i}.html", f"http://s/{i}", ""), RenderedPage("", (), blocks))
    >>> docs = [doc(0, "Moby Dick"), doc(1, "Great Expectations"), doc(2, "Ulysses")]
    >>> [b.text for b in InfoDiscovererCleaner().fit_transform(docs)[0].rendered.blocks]
    ['Moby Dick']
    """

    _fit_needs_blocks = True

    def __init__(
        self,
        threshold: float | None = None,
        step: float = 0.1,
        max_pages: int = 200,
        partition_tags: tuple[str, ...] = PARTITION_TAGS,
        random_state=None,
    ):
        self.threshold = threshold
        self.step = step
        self.max_pages = max_pages
        self.partition_tags = partition_tags
        self.random_state = random_state

    def _check_params(self) -> None:
        super()._check_params()
        if self.threshold is not None and not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be None or in [0, 1]; got {self.threshold}")
        if not 0.0 < self.step <= 1.0:
            raise ValueError(f"step must be in (0, 1]; got {self.step}")

    def _content_blocks(self, blocks: Sequence[TextBlock]) -> tuple[list[str | None], list[list[str]]]:
        """Content-block key (None for a malformed path) and terms of each text block."""
        keys: list[str | None] = []
        for block in blocks:
            try:
                keys.append(content_block_key(block.dom_path, self.partition_tags))
            except ValueError:
                keys.append(None)
        return keys, [block_terms(block.text) for block in blocks]

    @staticmethod
    def _group(keys: Sequence[str | None], values: Sequence) -> dict[str, list]:
        groups: dict[str, list] = defaultdict(list)
        for key, value in zip(keys, values, strict=True):
            if key is not None:
                groups[key].append(value)
        return groups

    def _block_entropy(self, terms: set[str]) -> float:
        entropy = self.term_entropy_
        return sum(entropy.get(term, 0.0) for term in terms) / len(terms)

    def _fit_site(self, documents: list[Document]) -> None:
        pages = []
        for document in documents:
            blocks = document.rendered.blocks
            keys, terms = self._content_blocks(blocks)
            pages.append((keys, terms, [block.text for block in blocks]))
        self.term_entropy_ = term_entropies([Counter(t for ts in terms for t in ts) for _, terms, _ in pages])
        entropies, sizes = [], []
        per_path: dict[str, list] = defaultdict(list)
        for keys, terms, texts in pages:
            block_texts = self._group(keys, texts)
            for key, term_lists in self._group(keys, terms).items():
                block = set().union(*term_lists)
                if not block:
                    continue
                entropy = self._block_entropy(block)
                entropies.append(entropy)
                sizes.append(len(block))
                per_path[key].append((entropy, " ".join(block_texts[key])[:160]))
        threshold, self.curve_ = choose_threshold(entropies, sizes, self.step)
        self.threshold_ = threshold if self.threshold is None else float(self.threshold)
        self.block_stats_ = sorted(
            (
                {"path": key or "(page)", "pages": len(seen),
                 "entropy": sum(e for e, _ in seen) / len(seen),
                 "redundant": sum(e > self.threshold_ + _TOLERANCE for e, _ in seen) / len(seen),
                 "text": seen[0][1]}
                for key, seen in per_path.items()
            ),
            key=lambda row: (-row["redundant"] * row["pages"], -row["entropy"]),
        )

    def _keep_mask(self, document: Document) -> list[bool]:
        keys, terms = self._content_blocks(document.rendered.blocks)
        redundant = set()
        for key, term_lists in self._group(keys, terms).items():
            block = set().union(*term_lists)
            if block and self._block_entropy(block) > self.threshold_ + _TOLERANCE:
                redundant.add(key)
        return [key is None or key not in redundant for key in keys]

    def redundant_blocks(self, max_rows: int = 20) -> list[dict]:
        """The content-block paths of the sample most often redundant (see ``block_stats_``)."""
        check_is_fitted(self)
        return [row for row in getattr(self, "block_stats_", []) if row["redundant"] > 0][:max_rows]
