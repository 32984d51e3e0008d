"""The general recogniser: a per-page ranker over candidates, with site-level evidence and inference.

Built for sites no label and no training run has touched. For each page:

1. candidates finer and coarser than a text block (:mod:`mainentity.features.candidates`);
2. features that mean the same on every site (:mod:`mainentity.features.transfer`), including
   site-level ones counted over the pages of the page's site (:mod:`mainentity.features.site`);
3. a :class:`~mainentity.models.ranker.CandidateRanker` scores them; the best is the answer;
4. the thing a page is about (:func:`_name_the_entity`): an answer that holds, with more words, the name the
   page's structured data gives its recipe, product or venue, where the page shows that name, gives way to
   it;
5. site-level inference (``site_vote``): a label text (a text a label slot of the site holds on several
   pages, :mod:`mainentity.features.site`) falls under the page's other candidates; on a site of several
   pages, the template slot that holds the
   answer on most pages wins a vote, and each page whose candidate in that slot scores within
   ``vote_margin`` of its best takes that candidate instead. No label is used;
6. the answer's score is the calibrated probability that it is right, fitted on the answers a model
   trained without them gives to held-out folds of the training pages: whole sites when the training
   data has several (so the mistakes it learns from are a new site's), else pages. By default the
   calibrator reads signals of doubt besides the ranker's score (:mod:`mainentity.recognizers.doubt`:
   the margin to the runner-up, whether the title, the first heading, ``og:title`` and JSON-LD agree,
   text the site repeats; :class:`~mainentity.models.calibration.DoubtCalibrator`); below
   ``abstain_below`` the page gets no answer.

Training adds, for each site, one of its pages again with a generic ``<title>`` (``generic_title_share``),
so that a title the page does not support loses to the page's own heading, and one with its heading set
over two lines (``split_heading_share``), so that a heading's whole text wins over its first line.

A very large site can be predicted in shards (the :class:`~mainentity.recognizers.base.Recognizer`
protocol for site-level recognisers): its :class:`~mainentity.features.site.SiteProfile` is counted
once over all its pages (:meth:`GeneralRecognizer.site_statistics`), each shard's pages are scored with
it (:meth:`GeneralRecognizer.score_shard`, keeping per page only the candidates that the vote or the
listed candidates can use), and the vote and the predictions are made over all the site's scored pages
(:meth:`GeneralRecognizer.predict_scored`): the same predictions as one ``predict`` call on the site.

Why a ranker and not the MS-RBFN with more sources: on the cross-site protocol
(``benchmarks/results/cross-site/``) the MS-RBFN's RBF units learn the one training site's font sizes
and positions (ROUGE-1 F1 0.75 from christianbook to Readability's pages), while a ranker over relative
features transfers (0.96). Boosted trees and logistic regression summed are the best or level with
the best on the protocols tested on Readability's pages; from Readability to christianbook logistic
regression alone does better and trees alone fail (``benchmarks/results/general_variants.md``).
"""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from typing import ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from mainentity.features.candidates import page_candidates, page_title_segments
from mainentity.features.generic_titles import short_link_texts, with_generic_title
from mainentity.features.jsonld import jsonld_entity_names, jsonld_titles
from mainentity.features.labels import main_entity_labels, shown_main_entity_labels
from mainentity.features.site import HOLDS_LABEL, IS_LABEL, SITE_FEATURES, SiteProfile, site_profile, slot_of
from mainentity.features.split_headings import split_heading_copies
from mainentity.features.transfer import MONOTONIC_FEATURES, TRANSFER_FEATURES, candidate_features, holds_words
from mainentity.models.calibration import DoubtCalibrator
from mainentity.models.ranker import AnswerCalibrator, CandidateRanker
from mainentity.recognizers.base import Recognizer
from mainentity.recognizers.doubt import DOUBT_SIGNALS, counterfactual_signals, doubt_signals
from mainentity.recognizers.scored_page import ScoredPage
from mainentity.records import Document, Page, Prediction, TextBlock
from mainentity.text import normalize_text

_SITE_COLUMNS = [TRANSFER_FEATURES.index(name) for name in SITE_FEATURES]
_HOLDS_SITE_NAME = TRANSFER_FEATURES.index("holds_site_name")

#: What the calibrator's held-out folds are made of (``calibration_folds`` in :class:`GeneralRecognizer`).
CALIBRATION_FOLDS = ("sites", "datasets")
#: Calibrators of the answers' scores (see ``calibration`` in :class:`GeneralRecognizer`).
CALIBRATIONS = ("counterfactual", "signals", "platt", "isotonic")


def _by_site(documents: Sequence[Document], site_keys: Sequence[Hashable] | None = None) -> dict[Hashable, list[int]]:
    """Indices of the documents of each site (by ``site_keys`` when given, else by their pages' site ids)."""
    sites: dict[Hashable, list[int]] = defaultdict(list)
    for i, document in enumerate(documents):
        sites[document.page.site_id if site_keys is None else site_keys[i]].append(i)
    return sites


def _one_site(site_ids: Sequence[str], what: str) -> None:
    """Raise ValueError when ``site_ids`` name more than one site."""
    if len(set(site_ids)) > 1:
        raise ValueError(f"{what} must be of one site; got sites {', '.join(sorted(set(site_ids)))}")


def _shows_main_entity(document: Document) -> bool:
    """Whether a visible text block or segment of the page is its main entity: without its title, only
    such a page still has an answer to learn."""
    rendered = document.rendered
    texts = [block.text for block in (*rendered.blocks, *rendered.segments) if not block.hidden]
    return bool(texts) and bool(main_entity_labels(texts, document.page.main_entity).any())


def _name_the_entity(candidates: Sequence[TextBlock], scores: np.ndarray, names: Sequence[str]) -> None:
    """In place: when the best candidate holds, with more words, a name the page's structured data gives a thing
    (:func:`~mainentity.features.jsonld.jsonld_entity_names`: ``Recipe.name`` "Lemon Tart" in the headline
    "Lemon Tart (Easy 5-Ingredient Recipe)"), and the page shows that name as a candidate of its own, that
    candidate becomes the best: the main entity is the thing, as its publisher names it and the page shows it.
    Structured data that the page does not show, or that the answer does not hold, changes nothing.

    >>> blocks = [TextBlock(t, "h1", "p", 30, 700, True, 0, 0, 9, 9) for t in ("Lemon Tart (Easy)", "Lemon Tart")]
    >>> scores = np.array([3.0, 1.0])
    >>> _name_the_entity(blocks, scores, ["Lemon Tart"]); scores.tolist()
    [3.0, 3.000001]
    """
    if not names or not len(scores):
        return
    best = int(np.argmax(scores))
    answer = normalize_text(candidates[best].text)
    keys = {normalize_text(name) for name in names} - {answer}
    shown = [i for i, candidate in enumerate(candidates)
             if normalize_text(candidate.text) in keys and holds_words(answer, normalize_text(candidate.text))]
    if shown:
        scores[max(shown, key=lambda i: scores[i])] = scores[best] + 1e-6


def _answer_signals(candidates: Sequence[TextBlock], scores: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The signals of doubt of a page's answer, shape ``(len(DOUBT_SIGNALS),)``; ``nan`` without candidates."""
    if not len(candidates):
        return np.full(len(DOUBT_SIGNALS), np.nan)
    return doubt_signals(features, scores, [candidate.text for candidate in candidates])


def _own_text_for_label_holder(slots: Sequence[str], scores: np.ndarray) -> None:
    """In place: the best candidate of slot ``S`` (a block's own text) takes the place of a merged block that
    holds a label (vote slot ``S + HOLDS_LABEL``) when that block scores higher, where the page has one: the
    evidence for the heading is evidence for the name it shows, and the label beside it is not part of it.

    >>> scores = np.array([2.0, 5.0, -1.0])
    >>> _own_text_for_label_holder(["h2|block|24.0|700", "h2|block|24.0|700" + HOLDS_LABEL, "h2/span|block"], scores)
    >>> scores.tolist()
    [5.000001, 5.0, -1.0]
    """
    best_of: dict[str, int] = {}
    for i, slot in enumerate(slots):
        if slot not in best_of or scores[i] > scores[best_of[slot]]:
            best_of[slot] = i
    for i, slot in enumerate(slots):
        own = best_of.get(slot[:-len(HOLDS_LABEL)]) if slot.endswith(HOLDS_LABEL) else None
        if own is not None:
            scores[own] = max(scores[own], scores[i] + 1e-6)


class GeneralRecognizer(Recognizer):
    """Recognise the main entity of pages of any site by ranking candidates (see the module docstring).

    Parameters
    ----------
    method, max_iter, learning_rate, max_depth, min_samples_leaf, l2
        The :class:`~mainentity.models.ranker.CandidateRanker`'s.
    monotonic : bool, default True
        Enforce the signs of :data:`~mainentity.features.transfer.MONOTONIC_FEATURES` (``gbm``).
    max_negatives : int, default 100
        At most this many other candidates of each training page, sampled at random (all main-entity
        candidates are kept): fitting time grows with candidates, the ranking hardly does.
    max_training_pages_per_site : int or None, default None
        Train on at most this many labeled pages of each site, a seeded sample (``None`` trains on all).
        A site's weight in training then does not grow with its page count: a shop dump of 2000 pages of
        one template counts as much as 20 pages of news sites, instead of drowning 240 one-page sites in
        its one layout. A sample rather than per-site sample weights, because every candidate of every
        page is featurised and the held-out folds are fitted again: sampling also bounds training time.
        The sampled pages are profiled as their site (site features are shares of its pages, which a
        sample of 20 estimates).
    site_features : bool, default True
        Use the site-level features (template share, slot share and variety); off, they are 0 as on a
        site of one page.
    site_dropout : float, default 0.5
        Share of the training pages of multi-page sites whose site features are set to those of a
        one-page site, so the ranker also learns to answer without site evidence (a dump of unrelated
        pages).
    generic_title_share : float, default 0.5
        Share of the training sites one page of which (a page that shows its main entity) is added
        again with a generic ``<title>`` and no meta titles, labels unchanged
        (:mod:`mainentity.features.generic_titles`): the text of one of its own short links (as a
        site's "Home" or name in its navigation), or of another page's when it has none (a title it
        does not show, as "Untitled"). Each copy is profiled as a site of one page, as a lone page with
        such a title is where site evidence cannot help. So the ranker learns that a title the page
        does not support is not its main entity instead of "the whole title wins". One page per site,
        not a share of pages: many copies of one template teach that template's layout (trained on
        christianbook alone, a quarter of its pages so copied made the layout of its product name
        outweigh title agreement on Readability's pages: ROUGE-1 F1 0.79 against 0.96; even its one
        copy costs 3 of those 93 pages, ``benchmarks/results/generic_titles.md``). 0 adds none.
    split_heading_share : float, default 0.5
        Share of the training sites one page of which is added again with its main-entity heading set
        over two lines (:func:`mainentity.features.split_headings.split_heading_copies`). 0 adds none.
    site_vote : bool, default True
        Site-level inference (step 5).
    vote_min_pages : int, default 3
        Sites with fewer pages are not voted on.
    vote_share : float, default 0.5
        The winning slot must hold the best candidate on at least this share of the site's pages.
    vote_margin : float, default 2.0
        A page takes the winning slot's candidate when its score is at least its best score minus this
        (ranker score units, log-odds).
    calibrate : bool, default True
        Fit the answer calibrator on held-out folds; off, the score is the ranker's raw best score.
    calibration : {"counterfactual", "signals", "platt", "isotonic"}, default "signals"
        The calibrator: a logistic regression on the answer's signals of doubt
        (:func:`~mainentity.recognizers.doubt.doubt_signals`: score, margin to the runner-up, agreement of
        the page's sources, text the site repeats; :class:`~mainentity.models.calibration.DoubtCalibrator`),
        the same on the score alone (Platt scaling), or isotonic regression on the score
        (:class:`~mainentity.models.ranker.AnswerCalibrator`). ``counterfactual`` is ``signals`` fitted
        also on one counterfactual wrong answer per held-out page
        (:func:`~mainentity.recognizers.doubt.counterfactual_signals`: its best wrong candidate in the
        answer's place; counterfactual data augmentation, Kaushik, Hovy & Lipton 2020), the intercept
        moved back to the held-out accuracy (prior correction, King & Zeng 2001); only when the folds
        are whole sites, else it is ``signals``. On the cross-site protocols ``signals`` is the one
        within both calibration targets where any is; ``counterfactual`` leaves fewer wrong answers
        scored >= 0.9 at about the same ECE (``benchmarks/results/calibration.md``).
    calibration_folds : {"sites", "datasets"}, default "sites"
        What the calibrator's held-out folds are made of. ``sites``: ``n_folds`` folds of whole sites when
        the training pages have at least that many sites, else of pages. ``datasets``: when the training
        pages come from two or more datasets (``Page.dataset``), each dataset held out in turn (the answers
        of a model that never saw that dataset's kind of site, language or labelling convention); from one
        dataset, as ``sites``. On the five-dataset protocol, whole sites calibrate better on three of the
        five left-out datasets (ECE 0.059 against 0.181 on postlight, 0.276 against 0.288 on
        booksamillion, 0.074 against 0.096 on Readability's pages; ``benchmarks/results/calibration.md``).
    n_folds : int, default 5
        Folds for the calibrator when they are not datasets: whole sites when the training pages have at
        least this many sites (the held-out answers are then those of sites the model never saw), else pages.
    abstain_below : float, default 0.0
        Calibrated probability under which a page gets no answer (``main_entity`` empty; the score and
        candidates are still given). 0 never abstains.
    n_top : int, default 5
        Candidates listed in each prediction's ``candidates``.
    random_state : int or None

    Attributes
    ----------
    ranker_ : CandidateRanker
    calibrator_ : DoubtCalibrator, AnswerCalibrator or None
    calibration_signals_ : ndarray of shape (n_held_out_pages, len(DOUBT_SIGNALS))
        The signals of doubt of the held-out answers the calibrator was fitted on (empty without one).
    calibration_correct_ : ndarray of shape (n_held_out_pages,)
        1 where that answer was right.
    feature_names_ : tuple of str
    n_training_pages_, n_training_candidates_ : int
        Labeled pages trained on, and candidates (those of the generic-title copies included).
    n_generic_title_copies_ : int
        Pages added with a generic title or a split heading (``generic_title_share``, ``split_heading_share``).
    """

    site_level: ClassVar[bool] = True

    def __init__(self, method="gbm", max_iter=200, learning_rate=0.1, max_depth=4, min_samples_leaf=40, l2=1.0,
                 monotonic=True, max_negatives=100, max_training_pages_per_site=None, site_features=True,
                 site_dropout=0.5, generic_title_share=0.5,
                 split_heading_share=0.5, site_vote=True,
                 vote_min_pages=3, vote_share=0.5, vote_margin=2.0, calibrate=True, calibration="signals",
                 calibration_folds="sites", n_folds=5, abstain_below=0.0, n_top=5, random_state=None):
        self.method = method
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2 = l2
        self.monotonic = monotonic
        self.max_negatives = max_negatives
        self.max_training_pages_per_site = max_training_pages_per_site
        self.site_features = site_features
        self.site_dropout = site_dropout
        self.generic_title_share = generic_title_share
        self.split_heading_share = split_heading_share
        self.site_vote = site_vote
        self.vote_min_pages = vote_min_pages
        self.vote_share = vote_share
        self.vote_margin = vote_margin
        self.calibrate = calibrate
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.n_folds = n_folds
        self.abstain_below = abstain_below
        self.n_top = n_top
        self.random_state = random_state

    def __setstate__(self, state: dict) -> None:
        # a model saved before ``calibration`` was a parameter was calibrated by isotonic regression on the score
        # and one saved before ``split_heading_share`` was trained without split headings; one saved before
        # ``calibration_folds`` held out folds of sites as the default does
        super().__setstate__({"calibration": "isotonic", "split_heading_share": 0.0,
                              "max_training_pages_per_site": None, "calibration_folds": "sites", **state})

    def _ranker(self) -> CandidateRanker:
        monotonic = [MONOTONIC_FEATURES.get(name, 0) for name in TRANSFER_FEATURES] if self.monotonic else None
        return CandidateRanker(self.method, self.max_iter, self.learning_rate, self.max_depth,
                               self.min_samples_leaf, self.l2, monotonic, self.random_state)

    @staticmethod
    def _site_candidates(site: Sequence[Document]) -> tuple[list[list[TextBlock]], list[list[str]]]:
        """The candidates of each rendered document of one site, and their slots."""
        candidates = [page_candidates(document.rendered, jsonld_titles(document.page.html)) for document in site]
        return candidates, [list(map(slot_of, page)) for page in candidates]

    def _profile(self, site: Sequence[Document], candidates, slots) -> SiteProfile:
        """The site profile of one site's rendered documents (that of a one-page site without site features)."""
        if not self.site_features:
            return SiteProfile(1)
        return site_profile(candidates, slots, [page_title_segments(document.rendered) for document in site])

    @staticmethod
    def _features(site: Sequence[Document], candidates, slots, profile: SiteProfile) -> list[np.ndarray]:
        return [candidate_features(page, document.page, document.rendered, profile, page_slots)
                for document, page, page_slots in zip(site, candidates, slots, strict=True)]

    def _page_candidates(self, documents: Sequence[Document], site_keys: Sequence[Hashable] | None = None,
                         ) -> list[tuple[list[TextBlock], np.ndarray, list[str]]]:
        """Candidates, features and vote slots (:meth:`~mainentity.features.site.SiteProfile.vote_slots`) of
        every document (site profiles over the given documents, grouped by ``site_keys`` when given)."""
        out: list = [None] * len(documents)
        for indices in _by_site(documents, site_keys).values():
            site = [documents[i] for i in indices]
            candidates, slots = self._site_candidates(site)
            profile = self._profile(site, candidates, slots)
            features = self._features(site, candidates, slots, profile)
            for i, page, x, page_slots in zip(indices, candidates, features, slots, strict=True):
                out[i] = (page, x, profile.vote_slots(page, page_slots))
        return out

    def fit(self, documents: Sequence[Document]) -> GeneralRecognizer:
        """Learn from labeled rendered documents; return ``self``.

        Candidates are labeled main entity as :func:`~mainentity.features.labels.main_entity_labels`
        says (equal to a label after normalisation, else the best token Dice >= 0.8 among the candidates that
        do not hold the site's name: a headline's ``<title>`` with its site suffix is not the headline).
        Documents without a rendering, labels or candidates are skipped with one warning that counts them.
        The documents are taken in (site id, path) order, so their order does not change the model (same
        ``random_state``, same pages: same model).

        Raises
        ------
        ValueError
            If no document has both a main-entity candidate and another candidate, or ``calibration``
            or ``calibration_folds`` is unknown.
        """
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"unknown calibration {self.calibration!r}; valid: {', '.join(CALIBRATIONS)}")
        if self.calibration_folds not in CALIBRATION_FOLDS:
            raise ValueError(f"unknown calibration_folds {self.calibration_folds!r}; "
                             f"valid: {', '.join(CALIBRATION_FOLDS)}")
        # pages in a fixed order (site, path): the negatives sampled, the dropout drawn and the folds dealt
        # are the same whatever order the documents arrive in (as rendering finishes), so is the model
        usable = sorted((d for d in documents if d.rendered is not None and d.page.main_entity),
                        key=lambda d: (d.page.site_id, d.page.path))
        n_skipped = len(documents) - len(usable)
        usable = self._site_sample(usable)
        rng = np.random.default_rng(self.random_state)
        augmented, site_keys = self._with_generic_titles(usable)
        features = self._page_candidates(augmented, site_keys)
        rows, labels, groups, sites, datasets = [], [], [], [], []
        site_ids = {site: k for k, site in enumerate(_by_site(usable))}  # a copy is held out with its site
        dataset_ids = {name: k for k, name in enumerate(sorted({d.page.dataset for d in usable}))}
        n_copies = 0
        for page_id, (document, (candidates, x, _)) in enumerate(zip(augmented, features, strict=True)):
            if not candidates:
                n_skipped += page_id < len(usable)
                continue
            n_copies += page_id >= len(usable)
            # a text that holds the site's name beside a long label is its wrapper: labeled only if exact
            y = main_entity_labels([c.text for c in candidates], document.page.main_entity,
                                   exact_only=x[:, _HOLDS_SITE_NAME] == 1.0)
            y = shown_main_entity_labels(candidates, y, document.page.main_entity)
            negatives = np.flatnonzero(~y)
            if len(negatives) > self.max_negatives:
                keep = np.sort(np.concatenate([np.flatnonzero(y), rng.choice(negatives, self.max_negatives,
                                                                             replace=False)]))
                x, y = x[keep], y[keep]
            if x[0, _SITE_COLUMNS[0]] == 1.0 and rng.random() < self.site_dropout:
                x = x.copy()
                x[:, _SITE_COLUMNS] = 0.0
            rows.append(x)
            labels.append(y)
            groups.append(np.full(len(y), page_id))
            sites.append(np.full(len(y), site_ids[document.page.site_id]))
            datasets.append(np.full(len(y), dataset_ids[document.page.dataset]))
        if n_skipped:
            warnings.warn(f"{n_skipped} of {len(documents)} training documents skipped "
                          "(not rendered, unlabeled or without candidates)", stacklevel=2)
        if not rows:
            raise ValueError("no training document has candidates")
        X, y, groups, sites = (np.concatenate(a) for a in (rows, labels, groups, sites))
        self.ranker_ = self._ranker().fit(X, y, groups)
        none = np.zeros((0, len(DOUBT_SIGNALS)))
        self.calibration_signals_, self.calibration_correct_, self.calibration_counterfactual_ = none, np.zeros(0), none
        if self.calibrate:
            self.calibration_signals_, self.calibration_correct_, self.calibration_counterfactual_ = (
                self._held_out_answers((X, y, groups, sites), np.concatenate(datasets), augmented, features,
                                       site_keys))
        self.calibrator_ = self._fit_calibrator(self.calibration_signals_, self.calibration_correct_,
                                                self.calibration_counterfactual_)
        self.feature_names_ = TRANSFER_FEATURES
        self.n_training_pages_ = len(rows) - n_copies
        self.n_generic_title_copies_ = n_copies
        self.n_training_candidates_ = len(y)
        return self

    def _site_sample(self, documents: Sequence[Document]) -> list[Document]:
        """At most ``max_training_pages_per_site`` of each site's documents (given in (site id, path) order), a
        sample from a random stream of its own (``random_state``, 3), kept in that order."""
        if self.max_training_pages_per_site is None:
            return list(documents)
        if self.max_training_pages_per_site < 1:
            raise ValueError("max_training_pages_per_site must be >= 1 or None; "
                             f"got {self.max_training_pages_per_site}")
        rng = np.random.default_rng(None if self.random_state is None else [self.random_state, 3])
        keep: list[int] = []
        for indices in _by_site(documents).values():
            if len(indices) > self.max_training_pages_per_site:
                indices = sorted(rng.choice(indices, self.max_training_pages_per_site, replace=False).tolist())
            keep += indices
        return [documents[i] for i in sorted(keep)]

    def _with_generic_titles(self, documents: Sequence[Document]) -> tuple[list[Document], list[Hashable]]:
        """The training documents, the split-heading and the generic-title copies (``split_heading_share``,
        ``generic_title_share``; each copy a site of one page) and the site key of each. Each kind draws
        from a random stream of its own (``random_state``, 2 and 1): the other draws do not depend on it."""
        site_keys: list[Hashable] = [document.page.site_id for document in documents]
        by_site = _by_site(documents)
        copies = split_heading_copies([[documents[i] for i in by_site[site]] for site in sorted(by_site)],
                                      self.split_heading_share, self.random_state)
        site_keys += [("split heading", k) for k in range(len(copies))]
        if self.generic_title_share <= 0:
            return [*documents, *copies], site_keys
        rng = np.random.default_rng(None if self.random_state is None else [self.random_state, 1])
        links = [short_link_texts(document.rendered, document.page.main_entity) for document in documents]
        pool = sorted({text for texts in links for text in texts})
        for site in sorted(by_site):  # sites and pages in a fixed order: the same copies whatever the input order
            shown = sorted((i for i in by_site[site] if _shows_main_entity(documents[i])),
                           key=lambda i: documents[i].page.path)
            if not shown or rng.random() >= self.generic_title_share:
                continue
            i = shown[rng.integers(len(shown))]
            own, labels = links[i], documents[i].page.main_entity
            if own:  # as a site's "Home" or name: a text its navigation shows
                title = own[rng.integers(len(own))]
            else:  # another page's link text, which this page does not show ("Untitled")
                title = next((text for text in (pool[k] for k in rng.integers(len(pool), size=8))
                              if text not in own and not main_entity_labels([text], labels)[0]), None) if pool else None
            if title is not None:
                copies.append(Document(documents[i].page, with_generic_title(documents[i].rendered, title)))
                site_keys.append(("generic title", len(copies)))
        return [*documents, *copies], site_keys

    def _held_out_answers(self, training, datasets: np.ndarray, documents, features, site_keys,
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Signals of doubt of the answers a model fitted without their fold gives, whether each was right, and
        the signals of the counterfactual wrong answers of those pages (:func:`counterfactual_signals`).

        ``training`` is the ranker's ``(X, y, groups, sites)`` and ``datasets`` the dataset of each row; the
        folds are as ``calibration_folds`` says. A held-out page is scored on all its
        candidates (``features``, per document) and voted on with the other held-out pages of its site,
        as :meth:`predict` would; right means equal to a label after normalisation (exact match). The
        counterfactual answers are given only when the folds are whole sites: the right answers they are
        told from are then those of many templates; from pages of one or a few sites, what tells a right
        answer from its runner-up is that site's template (trained on christianbook alone, its answers are
        all the first ``<h1>`` of a slot every page has), which misleads on other sites
        (``benchmarks/results/calibration.md``).
        """
        X, y, groups, sites = training
        folds, n_folds, by_site = self._calibration_folds(groups, sites, datasets)
        page_ids, first_rows = np.unique(groups, return_index=True)
        signals, correct, counterfactual = [], [], []
        for fold in range(n_folds):
            held = folds == fold
            if not held.any() or len(np.unique(y[~held])) < 2:
                continue
            ranker = self._ranker().fit(X[~held], y[~held], groups[~held])
            pages = [int(page) for page, row in zip(page_ids, first_rows, strict=True) if folds[row] == fold]
            scores = dict(zip(pages, self._scores([features[page][1] for page in pages], ranker), strict=True))
            for page in pages:
                self._page_inference(features[page][0], features[page][2], scores[page], documents[page].page.html)
            if self.site_vote:
                for site in _by_site([documents[page] for page in pages], [site_keys[page] for page in pages]).values():
                    self._vote([(features[pages[k]][2], scores[pages[k]]) for k in site])
            for page in pages:
                texts = [candidate.text for candidate in features[page][0]]
                signals.append(doubt_signals(features[page][1], scores[page], texts))
                wanted = {normalize_text(label) for label in documents[page].page.main_entity}
                right = [normalize_text(text) in wanted for text in texts]
                correct.append(right[int(np.argmax(scores[page]))])
                swapped = counterfactual_signals(features[page][1], scores[page], texts, right) if by_site else None
                if swapped is not None:
                    counterfactual.append(swapped)
        width = len(DOUBT_SIGNALS)
        return (np.array(signals).reshape(-1, width), np.array(correct, dtype=float),
                np.array(counterfactual).reshape(-1, width))

    def _calibration_folds(self, groups: np.ndarray, sites: np.ndarray, datasets: np.ndarray,
                           ) -> tuple[np.ndarray, int, bool]:
        """The calibrator's fold of each training row (rows' pages, sites and datasets as integer ids, each of
        shape ``(n_rows,)``), the number of folds, and whether the folds are whole sites (or datasets).

        ``calibration_folds="datasets"`` with two or more datasets: one fold per dataset. Otherwise
        ``n_folds`` seeded folds of whole sites, or of pages when there are fewer sites than folds.
        """
        if self.calibration_folds == "datasets" and len(np.unique(datasets)) >= 2:
            return np.unique(datasets, return_inverse=True)[1], len(np.unique(datasets)), True
        by_site = len(np.unique(sites)) >= self.n_folds
        units = sites if by_site else groups
        unit_ids = np.unique(units)
        fold_of = dict(zip(unit_ids, np.random.default_rng(self.random_state).permutation(len(unit_ids))
                           % self.n_folds, strict=True))
        return np.array([fold_of[u] for u in units]), self.n_folds, by_site

    def _fit_calibrator(self, signals: np.ndarray, correct: np.ndarray, counterfactual: np.ndarray,
                        ) -> DoubtCalibrator | AnswerCalibrator | None:
        """The ``calibration`` calibrator fitted on held-out answers' signals (and, for ``counterfactual``, on
        their counterfactual wrong answers'); ``None`` without any."""
        if len(correct) == 0:
            return None
        if self.calibration == "counterfactual" and len(counterfactual):
            # one made-up wrong answer per page (a balanced design): the intercept is moved back to the
            # held-out accuracy, so the counterfactuals shape the slopes and the real answers the base rate
            base_rate = (correct.sum() + 1.0) / (len(correct) + 2.0)  # as DoubtCalibrator's constant_
            return DoubtCalibrator().fit(np.concatenate([signals, counterfactual]),
                                         np.concatenate([correct, np.zeros(len(counterfactual))]), base_rate=base_rate)
        if self.calibration == "isotonic":
            return AnswerCalibrator().fit(signals[:, 0], correct)
        return DoubtCalibrator().fit(signals[:, :1] if self.calibration == "platt" else signals, correct)

    def _probability(self, signals: np.ndarray) -> float:
        """The calibrated probability of an answer with these signals of doubt."""
        if isinstance(self.calibrator_, AnswerCalibrator):
            return float(self.calibrator_.predict_proba(signals[:1])[0])
        return float(self.calibrator_.predict_proba(signals[None, :self.calibrator_.n_features_in_])[0])

    def scores_are_probabilities(self) -> bool:
        """Whether the scores are calibrated probabilities (a calibrator was fitted)."""
        return getattr(self, "calibrator_", None) is not None

    def candidate_scores(self, documents: Sequence[Document]) -> list[tuple[list[TextBlock], np.ndarray]]:
        """Every candidate of every document with its ranker score, after site-level inference.

        Parameters
        ----------
        documents : sequence of Document
            Rendered documents; the documents of one site are profiled together.

        Returns
        -------
        scored : list of (candidates, scores)
            Per document: its candidates and an ndarray of shape (n_candidates,) of scores (the
            winning slot's candidate gets the page's best score plus a small epsilon when the vote
            moves the answer to it).
        """
        check_is_fitted(self)
        return [(candidates, scores) for candidates, scores, _ in self._scored(documents)]

    def answer_signals(self, documents: Sequence[Document]) -> np.ndarray:
        """The signals of doubt of each document's answer (:func:`~mainentity.recognizers.doubt.doubt_signals`):
        the second part of :meth:`predict_with_signals`.

        Parameters
        ----------
        documents : sequence of Document
            Rendered documents; the documents of one site are profiled and voted on together.

        Returns
        -------
        signals : ndarray of shape (n_documents, len(DOUBT_SIGNALS))
            What the calibrator maps to :meth:`predict`'s score; ``nan`` for a page without candidates.
        """
        return self.predict_with_signals(documents)[1]

    def _scored(self, documents: Sequence[Document]) -> list[tuple[list[TextBlock], np.ndarray, np.ndarray]]:
        """:meth:`candidate_scores` with each page's candidate features too."""
        featured = self._page_candidates(documents)
        scores = self._scores([x for _, x, _ in featured])
        for document, (candidates, _, vote_slots), page_scores in zip(documents, featured, scores, strict=True):
            self._page_inference(candidates, vote_slots, page_scores, document.page.html)
        if self.site_vote:
            for indices in _by_site(documents).values():
                self._vote([(featured[i][2], scores[i]) for i in indices])
        return [(c, page_scores, x) for (c, x, _), page_scores in zip(featured, scores, strict=True)]

    def _scores(self, features: Sequence[np.ndarray], ranker: CandidateRanker | None = None) -> list[np.ndarray]:
        """Scores by ``ranker`` (``ranker_`` by default) of each page's candidates, from its features of shape
        (n_candidates, n_features)."""
        # one ranker call for all pages: per-call overhead dominates the trees' work on one page
        all_scores = (ranker or self.ranker_).decision_function(np.concatenate(features))
        bounds = np.cumsum([0] + [len(x) for x in features])
        return [all_scores[bounds[i]:bounds[i + 1]].copy() for i in range(len(features))]

    def _page_inference(self, candidates: Sequence[TextBlock], slots: Sequence[str], scores: np.ndarray,
                        html: str) -> None:
        """In place, one page: its structured data's name (:func:`_name_the_entity`), and with ``site_vote`` its
        site's labels. A label text (vote slot ending in :data:`~mainentity.features.site.IS_LABEL`: "(Mass
        Market Paperback)" on 500 pages of a shop) is the template's, never the entity's: its score drops under
        the page's lowest other score. A label is not part of the name it labels either: where a merged block
        that holds one (vote slot ending in :data:`~mainentity.features.site.HOLDS_LABEL`) scores higher than
        its own text without it, the own text takes its score (:func:`_own_text_for_label_holder`). Both read
        the site's profile through the vote slots but change one page only, so a site scored in shards gets
        them before its pages are trimmed (:meth:`score_shard`)."""
        _name_the_entity(candidates, scores, jsonld_entity_names(html))
        if not self.site_vote or not len(scores):
            return
        is_label = np.fromiter((slot.endswith(IS_LABEL) for slot in slots), bool, len(slots))
        if is_label.any() and not is_label.all():
            scores[is_label] = np.minimum(scores[is_label], scores[~is_label].min() - 1.0)
        _own_text_for_label_holder(slots, scores)

    def _vote(self, site_scored: list[tuple[list[str], np.ndarray]]) -> None:
        """Site-level inference, in place: move each page's answer to the winning slot when close.

        ``site_scored`` holds, per page of one site, its candidates' vote slots
        (:meth:`~mainentity.features.site.SiteProfile.vote_slots`) and their scores (after
        :meth:`_page_inference`).
        """
        pages = [(slots, scores) for slots, scores in site_scored if len(slots)]
        if len(pages) < self.vote_min_pages:
            return
        votes = Counter(slots[int(np.argmax(scores))] for slots, scores in pages)
        slot, count = votes.most_common(1)[0]
        if count < self.vote_share * len(pages):
            return
        for slots, scores in pages:
            best = int(np.argmax(scores))
            in_slot = [i for i, candidate_slot in enumerate(slots) if candidate_slot == slot]
            if not in_slot or best in in_slot:
                continue
            challenger = max(in_slot, key=lambda i: scores[i])
            if scores[challenger] >= scores[best] - self.vote_margin:
                scores[challenger] = scores[best] + 1e-6

    def predict(self, documents: Sequence[Document]) -> list[Prediction]:
        """One prediction per document, in order; pass all the documents of a site in one call.

        ``score`` is the calibrated probability that the answer is right (the raw ranker score when
        ``calibrate`` is off); ``candidates`` the ``n_top`` best distinct texts.
        """
        return self.predict_with_signals(documents)[0]

    def predict_with_signals(self, documents: Sequence[Document]) -> tuple[list[Prediction], np.ndarray]:
        """:meth:`predict`, and the signals of doubt of each answer from the same pass.

        Parameters
        ----------
        documents : sequence of Document
            All the documents of a site in one call (profiled and voted on together).

        Returns
        -------
        predictions : list of Prediction
            One per document, in order, as :meth:`predict` gives them.
        signals : ndarray of shape (n_documents, len(DOUBT_SIGNALS))
            Each answer's signals of doubt (:func:`~mainentity.recognizers.doubt.doubt_signals`: the
            ranker's score, its ``margin`` over the runner-up in log-odds, the sources' agreement, ...):
            what the calibrator maps to the score; ``nan`` for a page without candidates or without a reading
            (``Document.rendered`` is ``None``; a static reading counts as one).
        """
        check_is_fitted(self)
        predictions: list[Prediction | None] = [None] * len(documents)
        signals = np.full((len(documents), len(DOUBT_SIGNALS)), np.nan)
        renderable = [i for i, d in enumerate(documents) if d.rendered is not None]
        scored = self._scored([documents[i] for i in renderable]) if renderable else []
        for i, (candidates, scores, features) in zip(renderable, scored, strict=True):
            signals[i] = _answer_signals(candidates, scores, features)
            predictions[i] = self._prediction(documents[i].page, candidates, scores, signals[i])
        for i, document in enumerate(documents):
            if predictions[i] is None:
                page = document.page
                predictions[i] = Prediction(page.site_id, page.path, page.url, error="not rendered")
        return predictions, signals

    def site_statistics(self, documents: Sequence[Document]) -> SiteProfile:
        """The site profile of one site: what :meth:`predict` counts over the site's rendered documents.

        Parameters
        ----------
        documents : sequence of Document
            Every document of one site, in site order (unrendered ones are left out, as in :meth:`predict`).

        Returns
        -------
        profile : SiteProfile
            :func:`~mainentity.features.site.site_profile` of their candidates and titles (that of a
            one-page site when ``site_features`` is off).

        Raises
        ------
        ValueError
            If the documents are of more than one site.
        """
        _one_site([document.page.site_id for document in documents], "site_statistics' documents")
        site = [document for document in documents if document.rendered is not None]
        candidates, slots = self._site_candidates(site)
        return self._profile(site, candidates, slots)

    def score_shard(self, documents: Sequence[Document], statistics: SiteProfile) -> list[ScoredPage]:
        """Score a shard of one site's documents with the site's profile (:meth:`site_statistics`).

        Parameters
        ----------
        documents : sequence of Document
            Some documents of one site, in site order.
        statistics : SiteProfile
            The profile of all the site's documents.

        Returns
        -------
        scored : list of ScoredPage
            One per document, in order, with the candidates the vote and the prediction can use.

        Raises
        ------
        ValueError
            If the documents are of more than one site.
        TypeError
            If ``statistics`` is not a SiteProfile.
        """
        check_is_fitted(self)
        _one_site([document.page.site_id for document in documents], "score_shard's documents")
        if not isinstance(statistics, SiteProfile):
            raise TypeError(f"statistics must be the site's SiteProfile; got {type(statistics).__name__}")
        scored = [ScoredPage(document.page.site_id, document.page.path, document.page.url, error="not rendered")
                  for document in documents]
        renderable = [i for i, document in enumerate(documents) if document.rendered is not None]
        site = [documents[i] for i in renderable]
        candidates, slots = self._site_candidates(site)
        features = self._features(site, candidates, slots, statistics)
        scores = self._scores(features) if site else []
        vote_slots = [statistics.vote_slots(page, page_slots)
                      for page, page_slots in zip(candidates, slots, strict=True)]
        for document, *page in zip(site, candidates, vote_slots, scores, strict=True):
            self._page_inference(*page, document.page.html)
        for i, *page in zip(renderable, candidates, vote_slots, scores, features, strict=True):
            scored[i] = self._scored_page(documents[i].page, *page)
        return scored

    def _scored_page(self, page: Page, candidates: list[TextBlock], slots: list[str], scores: np.ndarray,
                     features: np.ndarray) -> ScoredPage:
        """The page's candidates that the vote or its prediction can use (see :class:`ScoredPage`)."""
        if not candidates:
            return ScoredPage(page.site_id, page.path, page.url)
        order = np.argsort(-scores, kind="stable")
        # the vote moves the answer only to a candidate within vote_margin of the best (see _vote)
        keep = scores >= scores[order[0]] - self.vote_margin if self.site_vote else np.zeros(len(scores), bool)
        keep[order[0]] = True
        listed: set[str] = set()
        for i in order:  # the n_top distinct texts that _prediction lists
            if len(listed) >= self.n_top:
                break
            keep[i] = True
            listed.add(candidates[i].text)
        kept = np.flatnonzero(keep)
        return ScoredPage(page.site_id, page.path, page.url, tuple(candidates[i] for i in kept),
                          tuple(slots[i] for i in kept), scores[kept], features[kept])

    def predict_scored(self, scored: Sequence[ScoredPage]) -> list[Prediction]:
        """The predictions of one site's scored pages (:meth:`score_shard` of all its shards, in site order).

        Runs the site vote over all of them, then calibrates; the result is :meth:`predict` on the site.

        Parameters
        ----------
        scored : sequence of ScoredPage

        Returns
        -------
        predictions : list of Prediction
            One per scored page, in order.

        Raises
        ------
        ValueError
            If the pages are of more than one site.
        """
        check_is_fitted(self)
        _one_site([page.site_id for page in scored], "predict_scored's pages")
        scores = [page.scores.copy() for page in scored]  # the vote changes scores in place
        if self.site_vote:
            self._vote([(page.slots, page_scores) for page, page_scores in zip(scored, scores, strict=True)
                        if not page.error])
        return [Prediction(page.site_id, page.path, page.url, error=page.error) if page.error
                else self._prediction(page, list(page.candidates), page_scores,
                                      _answer_signals(page.candidates, page_scores, page.features))
                for page, page_scores in zip(scored, scores, strict=True)]

    def _prediction(self, page: Page | ScoredPage, candidates: list[TextBlock], scores: np.ndarray,
                    signals: np.ndarray) -> Prediction:
        if not candidates:
            return Prediction(page.site_id, page.path, page.url, error="no text blocks")
        order = np.argsort(-scores, kind="stable")
        best = candidates[order[0]]
        score = float(scores[order[0]])
        if self.calibrator_ is not None:
            score = self._probability(signals)
        top: dict[str, None] = {}
        for i in order:  # the n_top best distinct texts, without walking the other candidates
            if len(top) >= self.n_top:
                break
            top.setdefault(candidates[i].text)
        answer = "" if self.abstain_below > 0 and score < self.abstain_below else best.text
        box = (best.x, best.y, best.width, best.height) if best.width > 0 else None  # a title not shown
        return Prediction(page.site_id, page.path, page.url, main_entity=answer, score=score, bbox=box,
                          candidates=tuple(top))
