"""Site style tree (SST) cleaning (Yi, Liu & Li, KDD 2003; Yi 2004, thesis section 4.2).

The DOM trees of a sample of a site's pages are merged top-down into one *site style tree*. An
*element node* E = (tag, display attributes, style nodes below it); a *style node* S = (sequence of
child element nodes, number of pages that use the sequence). Under each element node, a page's
sequence of children ``(tag, attributes)`` is a style: an identical style under the same element node
is shared and its page count incremented, a new one adds a style node with fresh element nodes.

Importance (section 4.2.2), with m the number of pages that use E and log base m:

- ``NodeImp(E) = -sum_i p_i log_m p_i`` over the l styles under E with usage shares p_i (1 if m = 1);
- a leaf (content) element node: ``CompImp(E) = 1 - sum_i H_E(a_i) / N`` over its N distinct features
  (words, and an image's ``src``), ``H_E(a) = -sum_j p_aj log_m p_aj`` with p_aj the share of a's
  occurrences in E that fall in page j (1 if m = 1);
- an internal node: ``CompImp(E) = (1 - g^l) NodeImp(E) + g^l sum_i p_i CompImp(S_i)`` with the
  attenuation g = 0.9 and ``CompImp(S)`` the mean CompImp of S's element nodes.

An element node is *noisy* when it and all its descendants have CompImp below the threshold t, and
*meaningful* when it is not noisy and none of its descendants is (section 4.2.3). The fitted tree
keeps only the maximal noisy and maximal meaningful nodes and the nodes above them (the simplified
SST). A page is mapped onto it top-down: every text block whose element lies in the DOM subtree of an
element matched to a noisy node is removed; DOM parts whose style matches nothing in the SST, and
everything under a meaningful node, are kept.

Generalisations of the 2003 paper for modern pages, all conservative (they can only keep more):

- Non-displayed elements (``script``, ``style``, ``head``, ``template``, ``noscript``, ``meta``...:
  :data:`IGNORED_TAGS`) are left out of the styles; they never carry text blocks.
- An element with both element children and non-space text gets one pseudo child ``#text`` per run
  of text between its element children, a leaf judged by its words (the paper's DOM trees have tag
  leaves only). A block of such text is removed only if its element is.
- An element that has no children on some pages and children on others gets an empty style whose
  CompImp is the leaf formula over the pages that use it. A leaf with no features at all (``<br>``,
  an empty cell) has CompImp 0 when m > 1 (presentation only, nothing to tell pages apart).
- Display attributes are :data:`DISPLAY_ATTRIBUTES` (``class`` and the presentational HTML
  attributes; ``id`` is left out because shops put product ids in it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from sklearn.utils.validation import check_is_fitted

from mainentity.cleaning import SiteCleaner
from mainentity.cleaning.dom import DomElement, iter_elements, parse_dom
from mainentity.records import Document
from mainentity.text import collapse_whitespace, tokenize

#: Elements left out of styles: never displayed, or holding no text block (blocks.js SKIP list).
IGNORED_TAGS = frozenset({
    "head", "script", "style", "noscript", "template", "meta", "link", "base", "title",
    "noembed", "noframes",
})
#: Attributes that make part of an element node's identity (Yi et al. 2003: display attributes).
DISPLAY_ATTRIBUTES = ("class", "style", "align", "valign", "bgcolor", "border", "color", "face")
#: Key of the pseudo element node standing for a run of text among element children.
TEXT_KEY: tuple = ("#text", ())
_ROOT_KEY: tuple = ("#document", ())
_MIXED, _NOISY, _MEANINGFUL = 0, 1, 2
_SAMPLE_CHARS = 160


def node_importance(style_pages: Sequence[int]) -> float:
    """NodeImp of an element node from the page counts of its styles (Yi et al. 2003, section 3.2).

    Parameters
    ----------
    style_pages : sequence of int, length l >= 1
        Pages that use each style under the node; their sum is m, the pages that use the node.

    Returns
    -------
    node_imp : float in [0, 1]
        ``-sum_i p_i log_m p_i`` with ``p_i = style_pages[i] / m``; 1 when m = 1.

    Raises
    ------
    ValueError
        If ``style_pages`` is empty or holds a count below 1.

    Examples
    --------
    Four pages, two styles used by 3 and 1 of them:

    >>> round(node_importance([3, 1]), 4)
    0.4056
    >>> node_importance([5]), node_importance([1])
    (0.0, 1.0)
    """
    if not style_pages or min(style_pages) < 1:
        raise ValueError(f"style_pages must be non-empty counts >= 1; got {list(style_pages)}")
    m = sum(style_pages)
    if m == 1:
        return 1.0
    entropy = -sum(k / m * math.log(k / m) for k in style_pages)
    return max(0.0, entropy / math.log(m))


class _ContentStats:
    """Feature sums of a leaf over the pages that use it: enough for CompImp without per-page storage.

    For a feature a with counts c_j in pages j and total T = sum_j c_j,
    ``-sum_j (c_j/T) ln(c_j/T) = ln T - (sum_j c_j ln c_j) / T``.
    """

    __slots__ = ("totals", "c_log_c")

    def __init__(self) -> None:
        self.totals: dict[str, int] = {}
        self.c_log_c: dict[str, float] = {}

    def add(self, features: Mapping[str, int]) -> None:
        for feature, count in features.items():
            self.totals[feature] = self.totals.get(feature, 0) + count
            if count > 1:
                self.c_log_c[feature] = self.c_log_c.get(feature, 0.0) + count * math.log(count)

    def importance(self, n_pages: int) -> float:
        if n_pages == 1:
            return 1.0
        if not self.totals:
            return 0.0
        log_m = math.log(n_pages)
        entropy_sum = 0.0
        for feature, total in self.totals.items():
            entropy_sum += (math.log(total) - self.c_log_c.get(feature, 0.0) / total) / log_m
        return min(1.0, max(0.0, 1.0 - entropy_sum / len(self.totals)))


def content_importance(page_features: Sequence[Mapping[str, int]]) -> float:
    """CompImp of a leaf element node from its features on each page that uses it (Yi et al. 2003).

    Parameters
    ----------
    page_features : sequence of mapping str -> int, length m >= 1
        For each of the m pages that contain the leaf, the count of each feature (word) in it.

    Returns
    -------
    comp_imp : float in [0, 1]
        ``1 - sum_i H(a_i) / N`` over the N distinct features, ``H(a) = -sum_j p_aj log_m p_aj`` with
        ``p_aj`` the share of a's occurrences that fall in page j. 1 when m = 1; 0 when m > 1 and the
        leaf has no feature.

    Raises
    ------
    ValueError
        If ``page_features`` is empty.

    Examples
    --------
    The same two words on all three pages (entropy 1 each) and a word only on one page (entropy 0):

    >>> content_importance([{"home": 1, "books": 1}] * 3)
    0.0
    >>> round(content_importance([{"home": 1, "gatsby": 1}, {"home": 1}, {"home": 1}]), 4)
    0.5
    """
    if not page_features:
        raise ValueError("page_features must hold the features of at least one page")
    stats = _ContentStats()
    for features in page_features:
        stats.add(features)
    return stats.importance(len(page_features))


def composite_importance(
    node_imp: float, style_shares: Sequence[float], style_imps: Sequence[float], attenuation: float = 0.9
) -> float:
    """CompImp of an internal element node (Yi et al. 2003, section 3.2).

    Parameters
    ----------
    node_imp : float
        NodeImp of the node (:func:`node_importance`).
    style_shares : sequence of float, length l
        Usage share p_i of each style under the node (they sum to 1).
    style_imps : sequence of float, length l
        CompImp of each style node: the mean CompImp of its element nodes.
    attenuation : float, default=0.9
        The factor g in (0, 1).

    Returns
    -------
    comp_imp : float
        ``(1 - g^l) node_imp + g^l sum_i p_i style_imps[i]``.

    Raises
    ------
    ValueError
        If the two sequences differ in length or are empty.

    Examples
    --------
    >>> round(composite_importance(0.0, [1.0], [0.5]), 4)
    0.45
    """
    if len(style_shares) != len(style_imps) or not style_shares:
        raise ValueError(
            f"need one share per style and at least one style; got {len(style_shares)} shares "
            f"and {len(style_imps)} importances"
        )
    weight = attenuation ** len(style_shares)
    mixed = sum(p * c for p, c in zip(style_shares, style_imps, strict=True))
    return (1.0 - weight) * node_imp + weight * mixed


def _as_tuple(key):
    """A node or style key back as nested tuples (a model file may store tuples as lists)."""
    return tuple(_as_tuple(part) for part in key) if isinstance(key, list | tuple) else key


class _ElementNode:
    __slots__ = ("key", "parent", "n_pages", "styles", "comp_imp", "max_imp", "status",
                 "sample_text", "sample_path")

    def __init__(self, key: tuple, parent: int, sample_text: str, sample_path: str) -> None:
        self.key = key
        self.parent = parent  # index of the parent element node, -1 for the root
        self.n_pages = 0
        self.styles: dict[tuple, int] = {}  # style key -> index of the style node
        self.comp_imp = 1.0
        self.max_imp = 1.0  # max CompImp over the node and its descendants
        self.status = _MIXED
        self.sample_text = sample_text
        self.sample_path = sample_path


class _StyleNode:
    __slots__ = ("n_pages", "children", "content")

    def __init__(self, children: list[int]) -> None:
        self.n_pages = 0
        self.children = children  # indices of the element nodes, in sequence order
        self.content: _ContentStats | None = None if children else _ContentStats()


class SiteStyleTreeCleaner(SiteCleaner):
    """Remove the text blocks a site's style tree marks as noisy (Yi, Liu & Li, KDD 2003).

    Parameters
    ----------
    threshold : float in [0, 1], default=0.5
        t: an element node is noisy when it and all its descendants have CompImp below t. Raise it to
        remove more. Measured on all 1000 rendered SWDE christianbook pages (200 sampled;
        ``benchmarks/results/cleaning/christianbook.md``): the share of text blocks removed is 0.539
        at t = 0.3, 0.547 at 0.5, 0.570 at 0.7 and 0.642 at 0.9, and the block equal to the main
        entity survives on 100% of pages up to t = 0.7 and 99.8% at 0.9; on the sample shop 0.540,
        0.604, 0.679, 0.739 of the blocks go at the same t, with every main entity kept. The default
        sits in the flat middle of that curve, well below where main entities go.
        ``site_cleaning_report`` (``mainentity clean --report``) lists, per node, the ``max_imp`` at
        which it would be removed, with sample text, to set t per site.
    attenuation : float in (0, 1), default=0.9
        g of the CompImp formula.
    max_pages : int, default=200
        Pages sampled (seeded by ``random_state``) to build the tree.
    display_attributes : tuple of str, default=DISPLAY_ATTRIBUTES
        Attributes that, with the tag, identify an element node.
    random_state : int, RandomState or None, default=None
        Seed of the page sample.

    Attributes
    ----------
    n_nodes_built_ : int
        Element nodes of the full SST before simplification.
    nodes_ : list
        Element nodes of the simplified SST (index 0 is the document root); internal.
    styles_ : list
        Style nodes of the simplified SST; internal.
    n_noisy_, n_meaningful_ : int
        Maximal noisy and maximal meaningful element nodes.
    (and those of :class:`~mainentity.cleaning.SiteCleaner`)

    References
    ----------
    .. [1] L. Yi, B. Liu, X. Li (2003), "Eliminating noisy information in Web pages for data mining",
       KDD, sections 3-4. L. Yi (2004), PhD thesis, NUS, section 4.2.

    Examples
    --------
    >>> from mainentity.records import Page
    >>> pages = [f"<nav><a>Home</a></nav><h1>Title {w}</h1>" for w in ("one", "two", "three")]
    >>> docs = [Document(Page("s", f"{i}.html", f"http://s/{i}", h)) for i, h in enumerate(pages)]
    >>> sst = SiteStyleTreeCleaner(random_state=0).fit(docs)
    >>> sorted(sst.noisy_paths(parse_dom(pages[0])))
    ['html[0]/body[1]/nav[0]', 'html[0]/body[1]/nav[0]/a[0]']
    """

    def __init__(
        self,
        threshold: float = 0.5,
        attenuation: float = 0.9,
        max_pages: int = 200,
        display_attributes: tuple[str, ...] = DISPLAY_ATTRIBUTES,
        random_state=None,
    ):
        self.threshold = threshold
        self.attenuation = attenuation
        self.max_pages = max_pages
        self.display_attributes = display_attributes
        self.random_state = random_state

    def _check_params(self) -> None:
        super()._check_params()
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1]; got {self.threshold}")
        if not 0.0 < self.attenuation < 1.0:
            raise ValueError(f"attenuation must be in (0, 1); got {self.attenuation}")

    # -- building ---------------------------------------------------------------------------------

    def _key(self, element: DomElement) -> tuple:
        attributes = element.attributes
        return (element.tag, tuple(
            (name, collapse_whitespace(attributes[name] or ""))
            for name in self.display_attributes if name in attributes
        ))

    def _children(self, element: DomElement) -> list[tuple[tuple, DomElement | str]]:
        """(key, child) pairs of the style of ``element``: kept element children and text runs."""
        if not any(isinstance(c, DomElement) and c.tag not in IGNORED_TAGS for c in element.children):
            return []
        children: list[tuple[tuple, DomElement | str]] = []
        run: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                run.append(child)
            elif child.tag not in IGNORED_TAGS:
                text = "".join(run)
                if text.strip():
                    children.append((TEXT_KEY, text))
                run = []
                children.append((self._key(child), child))
        text = "".join(run)
        if text.strip():
            children.append((TEXT_KEY, text))
        return children

    @staticmethod
    def _features(item: DomElement | str) -> Counter:
        if isinstance(item, str):
            return Counter(tokenize(item))
        features = Counter(tokenize("".join(c for c in item.children if isinstance(c, str))))
        if item.tag == "img" and item.attributes.get("src"):
            features["img:" + item.attributes["src"]] += 1
        return features

    def _new_element(self, key: tuple, parent: int, item: DomElement | str, parent_path: str) -> int:
        if isinstance(item, str):
            text, path = collapse_whitespace(item)[:_SAMPLE_CHARS], parent_path
        else:
            text, path = item.text(limit=_SAMPLE_CHARS, separator=" "), item.path
        self.nodes_.append(_ElementNode(key, parent, text, path))
        return len(self.nodes_) - 1

    def _add_page(self, root: DomElement) -> None:
        """Merge one page's DOM into the tree (section 4.2.1)."""
        nodes, styles = self.nodes_, self.styles_
        stack: list[tuple[int, DomElement | str]] = [(0, DomElement("#document", "", {}, [root]))]
        while stack:
            index, item = stack.pop()
            node = nodes[index]
            node.n_pages += 1
            children = [] if isinstance(item, str) else self._children(item)
            style_key = tuple(key for key, _ in children)
            style_index = node.styles.get(style_key)
            if style_index is None:
                parent_path = item.path if isinstance(item, DomElement) else ""
                style = _StyleNode([self._new_element(key, index, child, parent_path)
                                    for key, child in children])
                styles.append(style)
                style_index = node.styles[style_key] = len(styles) - 1
            style = styles[style_index]
            style.n_pages += 1
            if style.content is not None:
                style.content.add(self._features(item))
            stack.extend(zip(style.children, (child for _, child in children), strict=True))

    def _mark_importance(self) -> None:
        """CompImp of every node, bottom-up (children always have larger indices than parents)."""
        nodes, styles, g = self.nodes_, self.styles_, self.attenuation
        for node in reversed(nodes):
            node_styles = [styles[i] for i in node.styles.values()]
            m = node.n_pages
            if len(node_styles) == 1 and node_styles[0].content is not None:
                node.comp_imp = node_styles[0].content.importance(m)
                node.max_imp = node.comp_imp
                continue
            style_imps = []
            max_imp = 0.0
            for style in node_styles:
                if style.content is not None:
                    style_imps.append(style.content.importance(style.n_pages))
                else:
                    style_imps.append(sum(nodes[c].comp_imp for c in style.children) / len(style.children))
                    max_imp = max(max_imp, max(nodes[c].max_imp for c in style.children))
            node.comp_imp = composite_importance(
                node_importance([s.n_pages for s in node_styles]),
                [s.n_pages / m for s in node_styles], style_imps, g,
            )
            node.max_imp = max(max_imp, node.comp_imp, *style_imps)

    def _simplify(self) -> None:
        """Keep the maximal noisy and meaningful nodes and those above them (section 4.2.3)."""
        t = self.threshold
        nodes, styles = self.nodes_, self.styles_
        # min over strict descendants of max_imp: a descendant is noisy iff its max_imp < t.
        min_below = [math.inf] * len(nodes)
        for index in range(len(nodes) - 1, -1, -1):
            node = nodes[index]
            for style_index in node.styles.values():
                for child in styles[style_index].children:
                    min_below[index] = min(min_below[index], min_below[child], nodes[child].max_imp)
        new_nodes: list[_ElementNode] = []
        new_styles: list[_StyleNode] = []
        queue = [(0, -1)]
        while queue:
            index, parent = queue.pop()
            node = nodes[index]
            node.parent = parent
            new_index = len(new_nodes)
            new_nodes.append(node)
            if node.max_imp < t:
                node.status = _NOISY
            elif min_below[index] >= t:
                node.status = _MEANINGFUL
            if node.status != _MIXED:
                node.styles = {}
                continue
            remapped = {}
            for style_key, style_index in node.styles.items():
                style = styles[style_index]
                style.content = None  # the feature sums are only needed for CompImp
                remapped[style_key] = len(new_styles)
                new_styles.append(style)
                queue.extend((child, new_index) for child in reversed(style.children))
            node.styles = remapped
        # The kept styles still name their children by old index; renumber them.
        position = {id(node): i for i, node in enumerate(new_nodes)}
        for style in new_styles:
            style.children = [position[id(nodes[child])] for child in style.children]
        self.nodes_, self.styles_ = new_nodes, new_styles
        self.n_noisy_ = sum(node.status == _NOISY for node in new_nodes)
        self.n_meaningful_ = sum(node.status == _MEANINGFUL for node in new_nodes)

    def __getstate__(self) -> dict:
        """The attributes with the tree nodes as builtins, so a model file can hold the cleaner."""
        state = dict(super().__getstate__())  # a copy: object.__getstate__ returns __dict__ itself
        if "nodes_" in state:
            state["nodes_"] = [
                [node.key, node.parent, node.n_pages, list(node.styles.items()), node.comp_imp, node.max_imp,
                 node.status, node.sample_text, node.sample_path]
                for node in self.nodes_
            ]
            state["styles_"] = [
                [style.n_pages, style.children,
                 None if style.content is None else [style.content.totals, style.content.c_log_c]]
                for style in self.styles_
            ]
        return state

    def __setstate__(self, state: dict) -> None:
        """Rebuild the tree nodes from :meth:`__getstate__`'s builtins."""
        state = dict(state)
        if "nodes_" in state:
            nodes = []
            for key, parent, n_pages, styles, comp_imp, max_imp, status, text, path in state["nodes_"]:
                node = _ElementNode(_as_tuple(key), parent, text, path)
                node.n_pages, node.comp_imp, node.max_imp, node.status = n_pages, comp_imp, max_imp, status
                node.styles = {_as_tuple(style_key): index for style_key, index in styles}
                nodes.append(node)
            styles = []
            for n_pages, children, content in state["styles_"]:
                style = _StyleNode(list(children))
                style.n_pages = n_pages
                if content is not None:
                    style.content.totals, style.content.c_log_c = dict(content[0]), dict(content[1])
                styles.append(style)
            state["nodes_"], state["styles_"] = nodes, styles
        super().__setstate__(state)

    def _fit_site(self, documents: list[Document]) -> None:
        self.nodes_ = [_ElementNode(_ROOT_KEY, -1, "", "")]
        self.styles_ = []
        for document in documents:
            self._add_page(parse_dom(document.page.html))
        self.n_nodes_built_ = len(self.nodes_)
        self._mark_importance()
        self._simplify()

    # -- mapping ----------------------------------------------------------------------------------

    def noisy_paths(self, root: DomElement) -> set[str]:
        """``dom_path`` of every element of a page that lies under an element matched to a noisy node.

        Parameters
        ----------
        root : DomElement
            The page's parse (:func:`~mainentity.cleaning.dom.parse_dom`).

        Returns
        -------
        paths : set of str
            Paths of the elements whose text blocks the cleaner removes.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the cleaner has not been fitted (or passed the site through: then the set is empty).
        """
        check_is_fitted(self)
        if self.passthrough_:
            return set()
        nodes, styles = self.nodes_, self.styles_
        paths: set[str] = set()
        stack: list[tuple[int, DomElement | str]] = [(0, DomElement("#document", "", {}, [root]))]
        while stack:
            index, item = stack.pop()
            node = nodes[index]
            if node.status == _NOISY:
                if isinstance(item, DomElement):
                    paths.update(element.path for element in iter_elements(item))
                continue
            if node.status == _MEANINGFUL or isinstance(item, str):
                continue
            children = self._children(item)
            style_index = node.styles.get(tuple(key for key, _ in children))
            if style_index is not None:
                stack.extend(zip(styles[style_index].children, (child for _, child in children), strict=True))
        return paths

    def _keep_mask(self, document: Document) -> list[bool]:
        paths = self.noisy_paths(parse_dom(document.page.html))
        return [block.dom_path not in paths for block in document.rendered.blocks]

    # -- reporting --------------------------------------------------------------------------------

    def node_label(self, index: int) -> str:
        """Readable path of an SST element node: ``html > body > div.header > ul.nav``."""
        parts = []
        while index > 0:
            tag, attributes = self.nodes_[index].key
            classes = dict(attributes).get("class", "").split()
            parts.append(tag + "".join("." + name for name in classes[:2]))
            index = self.nodes_[index].parent
        return " > ".join(reversed(parts))

    def node_rows(self, statuses: Iterable[str] = ("noisy",)) -> list[dict]:
        """Element nodes of the simplified SST by status, most-used first.

        Parameters
        ----------
        statuses : iterable of {"noisy", "meaningful", "mixed"}
            Which nodes to list: the maximal noisy nodes, the maximal meaningful nodes, and/or the
            nodes above them (neither).

        Returns
        -------
        rows : list of dict
            ``status``, ``node`` (:meth:`node_label`), ``pages`` (pages of the sample that use it),
            ``comp_imp`` (its CompImp), ``max_imp`` (the largest CompImp in its subtree: the node is
            noisy iff ``max_imp < threshold``), ``dom_path`` and ``text`` (from the first page that
            used it).

        Raises
        ------
        ValueError
            If a status is not one of the three.
        """
        check_is_fitted(self)
        wanted = {"noisy": _NOISY, "meaningful": _MEANINGFUL, "mixed": _MIXED}
        statuses = list(statuses)
        unknown = [name for name in statuses if name not in wanted]
        if unknown:
            raise ValueError(f"unknown node status {unknown[0]!r}; valid: meaningful, mixed, noisy")
        codes = {wanted[name] for name in statuses}
        names = {code: name for name, code in wanted.items()}
        rows = [
            {"status": names[node.status], "node": self.node_label(i), "pages": node.n_pages,
             "comp_imp": node.comp_imp, "max_imp": node.max_imp, "dom_path": node.sample_path,
             "text": node.sample_text}
            for i, node in enumerate(getattr(self, "nodes_", [])) if i > 0 and node.status in codes
        ]
        rows.sort(key=lambda row: (-row["pages"], row["max_imp"]))
        return rows
