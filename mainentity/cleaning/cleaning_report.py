"""The per-site cleaning report: what a fitted cleaner removes, with sample text, to help set its threshold.

``mainentity clean --report`` prints :func:`sites_cleaning_report`: :func:`site_cleaning_report` for each
site, with the share of text blocks its cleaner removes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sklearn.utils.validation import check_is_fitted

from mainentity.cleaning import SiteCleaner
from mainentity.cleaning.infodiscoverer import InfoDiscovererCleaner
from mainentity.cleaning.sst import SiteStyleTreeCleaner
from mainentity.records import Document


def _cell(text: str, width: int = 100) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def site_cleaning_report(cleaner: SiteCleaner, max_nodes: int = 20) -> str:
    """Markdown report of one site's fitted cleaner.

    For the site style tree: the maximal noisy nodes (removed) and the meaningful nodes that a higher
    threshold would remove next, each with the pages of the sample that use it, its CompImp, the
    largest CompImp below it (``max_imp``: the node is noisy iff ``max_imp < t``), an example
    ``dom_path`` and sample text. For InfoDiscoverer: the chosen entropy threshold, the feature curve
    of its search and the content blocks most often redundant. A single-page site says it passed
    through.

    Parameters
    ----------
    cleaner : SiteCleaner
        A cleaner fitted on one site.
    max_nodes : int, default=20
        Rows per table.

    Returns
    -------
    report : str
        Markdown text.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the cleaner has not been fitted.
    ValueError
        If ``max_nodes`` < 1.

    Examples
    --------
    >>> from mainentity.records import Document, Page
    >>> docs = [Document(Page("solo", "a.html", "http://solo/a", "<p>x</p>"))]
    >>> print(site_cleaning_report(SiteStyleTreeCleaner().fit(docs)).splitlines()[-1])
    Single page (1 usable): nothing to learn across pages, so its pages pass through unchanged.
    """
    check_is_fitted(cleaner)
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be >= 1; got {max_nodes}")
    method = type(cleaner).__name__
    lines = [f"## Site `{cleaner.site_id_}`: {method}", ""]
    n_sampled = len(cleaner.sample_indices_)
    if cleaner.passthrough_:
        lines.append(
            f"Single page ({n_sampled} usable): nothing to learn across pages, so its pages pass "
            "through unchanged."
        )
        return "\n".join(lines)
    lines.append(
        f"Model learned from {n_sampled} of {cleaner.n_documents_} pages in {cleaner.fit_time_s_:.2f} s."
    )
    if isinstance(cleaner, SiteStyleTreeCleaner):
        lines += _sst_section(cleaner, max_nodes)
    elif isinstance(cleaner, InfoDiscovererCleaner):
        lines += _infodiscoverer_section(cleaner, max_nodes)
    else:
        lines += ["", "This method removes nothing."]
    return "\n".join(lines)


def _sst_section(cleaner: SiteStyleTreeCleaner, max_nodes: int) -> list[str]:
    t = cleaner.threshold
    lines = [
        f"Site style tree: {cleaner.n_nodes_built_} element nodes built, {cleaner.n_noisy_} maximal noisy "
        f"and {cleaner.n_meaningful_} maximal meaningful nodes at threshold t = {t:g}.",
        "",
        "A node is noisy when the largest CompImp in its subtree (`max_imp`) is below t: its text "
        "blocks are removed.",
    ]
    header = ["", "| node | pages | CompImp | max_imp | dom_path (example) | sample text |",
              "| --- | ---: | ---: | ---: | --- | --- |"]

    def table(rows):
        return header + [
            f"| `{_cell(r['node'], 80)}` | {r['pages']} | {r['comp_imp']:.3f} | {r['max_imp']:.3f} "
            f"| `{r['dom_path']}` | {_cell(r['text'])} |"
            for r in rows[:max_nodes]
        ]

    noisy = cleaner.node_rows(("noisy",))
    with_text = [r for r in noisy if r["text"]]
    lines += ["", f"### Noisy nodes (removed), {len(noisy)}; the {len(with_text)} with text, most-used first"]
    lines += table(with_text) if with_text else ["", "None with text at this threshold."]
    shared = [r for r in cleaner.node_rows(("meaningful",)) if r["pages"] > 1]
    shared.sort(key=lambda r: r["max_imp"])
    lines += ["", "### Kept nodes a higher t would remove next (shared by > 1 page, lowest max_imp first)"]
    lines += table(shared) if shared else ["", "None."]
    return lines


def _infodiscoverer_section(cleaner: InfoDiscovererCleaner, max_nodes: int) -> list[str]:
    how = "chosen automatically" if cleaner.threshold is None else "set by the configuration"
    lines = [
        f"Entropy threshold {cleaner.threshold_:g} ({how}); {len(cleaner.term_entropy_)} terms. "
        "Content blocks with a mean term entropy above it are redundant and removed.",
        "",
        "Features in informative blocks F(h) by threshold h: "
        + ", ".join(f"{h:g}: {f}" for h, f in cleaner.curve_),
    ]
    rows = cleaner.redundant_blocks(max_nodes)
    lines += ["", f"### Content blocks most often redundant, {len(rows)} shown",
              "", "| content block | pages | mean entropy | redundant share | sample text |",
              "| --- | ---: | ---: | ---: | --- |"]
    lines += [
        f"| `{r['path']}` | {r['pages']} | {r['entropy']:.3f} | {r['redundant']:.2f} | {_cell(r['text'])} |"
        for r in rows
    ] or ["| (none) | | | | |"]
    return lines


def sites_cleaning_report(
    documents: Sequence[Document], cleaners: Mapping[str, SiteCleaner], header: Sequence[str] = ()
) -> str:
    """Markdown report of the fitted cleaner of each site: the share of text blocks it removes from the
    site's rendered documents, then :func:`site_cleaning_report`.

    Parameters
    ----------
    documents : sequence of Document
        Rendered documents of the sites (``rendered`` set).
    cleaners : mapping of str to SiteCleaner
        ``site_id -> `` cleaner fitted on that site's documents; empty when the method is ``none``.
    header : sequence of str
        Lines put first.

    Returns
    -------
    report : str
        Markdown text.
    """
    lines = list(header)
    if not cleaners:
        return "\n".join([*lines, "Method 'none' removes nothing."]) + "\n"
    for site_id, cleaner in cleaners.items():
        site_documents = [doc for doc in documents if doc.page.site_id == site_id]
        n_blocks = sum(len(doc.rendered.blocks) for doc in site_documents)
        n_kept = sum(len(kept.rendered.blocks) for doc in site_documents for kept in cleaner.transform([doc]))
        section = site_cleaning_report(cleaner).split("\n", 1)
        share = (n_blocks - n_kept) / max(n_blocks, 1)
        lines += [section[0], "",
                  f"Removes {n_blocks - n_kept} of {n_blocks} text blocks ({share:.1%}) "
                  f"over the site's {len(site_documents)} rendered pages.",
                  *section[1:], ""]
    return "\n".join(lines)
