// Text block extraction (Carullo & Binaghi 2010, KDIR, section 3.4.2), run inside the rendered page.
//
// Called by mainentity/render/browser.py as page.evaluate(<this file>, metaKeys). Works with JavaScript
// disabled in the page (Playwright evaluates in the page through the DevTools protocol).
//
// Blocks: every non-empty text node, plus one merged block for each element whose content is only text
// and inline formatting elements (INLINE below) and has at least two non-empty parts; the merged block
// comes right after the blocks of its content (the paper lists it last). Not walked: SKIP elements
// (<noscript> too when scripting is on) and display:none subtrees. Images and SKIP/display:none children neither split a merge nor add text.
//
// Root un-hiding: a page is never hidden as a whole. `display: none`, a `visibility` other than
// "visible" or `opacity: 0` on <html> or <body> is anti-flicker or frame-busting CSS (e.g.
// `html { display: none }` until a script finds the page is not framed, or an A/B-testing
// `body { visibility: hidden !important }` until a script removes it) that the page's own, blocked,
// scripts would lift; it is overridden with inline `!important` styles before anything is measured.
// Hiding below <body> is kept as it is. This changes the page's DOM (screenshots rely on it).
//
// Returns a JSON string:
//   {"url", "title", "meta": [[key, content], ...], "width", "height",
//    "blocks": [[text, tag, dom_path, font_size, font_weight, bold, x, y, width, height,
//                in_link, heading_level, hidden, merged], ...]}
// with booleans as 0/1, lengths in CSS px, y from the page top.
(metaKeys) => {
  const SKIP = new Set([
    "head", "script", "style", "template", "iframe", "noembed", "noframes", "canvas", "video", "audio",
  ]);
  // <noscript> content is displayed, and parsed as markup, only when scripting is off (the default
  // here): a person then sees it. The fragment parser tells which case this page is in.
  const probe = document.createElement("noscript");
  probe.innerHTML = "<b></b>";
  if (probe.firstChild === null || probe.firstChild.nodeType !== Node.ELEMENT_NODE) SKIP.add("noscript");
  const INLINE = new Set([
    "a", "abbr", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font",
    "i", "ins", "kbd", "mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
    "sup", "time", "tt", "u", "var", "wbr",
  ]);
  const TRANSPARENT = new Set(["img"]);
  const HEADING = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
  const SPACE = /\s+/g;
  const NON_SPACE = /\S/;

  const doc = document.documentElement;
  const body = document.body;

  function unhide(el) {
    if (el === null) return;
    const style = getComputedStyle(el);
    if (style.display === "none") el.style.setProperty("display", "block", "important");
    if (style.visibility !== "visible") el.style.setProperty("visibility", "visible", "important");
    if (parseFloat(style.opacity) === 0) el.style.setProperty("opacity", "1", "important");
  }
  unhide(doc);  // first: <body>'s computed style inherits from it
  unhide(body);
  const pageWidth = Math.max(doc ? doc.scrollWidth : 0, body ? body.scrollWidth : 0);
  const pageHeight = Math.max(doc ? doc.scrollHeight : 0, body ? body.scrollHeight : 0);
  const scrollX = window.scrollX;
  const scrollY = window.scrollY;
  const range = document.createRange();
  const blocks = [];
  const round2 = (v) => Math.round(v * 100) / 100;

  // Hidden rule: visibility other than "visible", a zero-width or zero-height box, or a box entirely
  // outside the page rectangle [0, pageWidth] x [0, pageHeight].
  function pushBlock(text, node, tag, path, ctx, merged) {
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    const x = r.left + scrollX;
    const y = r.top + scrollY;
    const hidden = ctx.visibility !== "visible" || r.width <= 0 || r.height <= 0 ||
      x + r.width <= 0 || y + r.height <= 0 || x >= pageWidth || y >= pageHeight;
    blocks.push([
      text.replace(SPACE, " ").trim(), tag, path, ctx.fontSize, ctx.fontWeight,
      ctx.fontWeight >= 600 || ctx.boldTag ? 1 : 0, round2(x), round2(y), round2(r.width),
      round2(r.height), ctx.inLink ? 1 : 0, ctx.heading, hidden ? 1 : 0, merged ? 1 : 0,
    ]);
  }

  // Walk one displayed element; returns its raw text when its content is only text and inline
  // formatting elements, else null. `path` is its dom_path.
  function visit(el, tag, path, parent, style) {
    const ctx = {
      fontSize: parseFloat(style.fontSize) || 0,
      fontWeight: parseInt(style.fontWeight, 10) || 400,
      visibility: style.visibility,
      boldTag: parent.boldTag || tag === "b" || tag === "strong",
      inLink: parent.inLink || (tag === "a" && el.hasAttribute("href")),
      heading: HEADING[tag] || parent.heading,
    };
    const parts = [];
    let inlineOnly = true;
    let nParts = 0;
    let index = 0;
    for (let child = el.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE || child.nodeType === Node.CDATA_SECTION_NODE) {
        const data = child.data;
        parts.push(data);
        if (NON_SPACE.test(data)) {
          nParts += 1;
          pushBlock(data, child, tag, path, ctx, false);
        }
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      const childTag = child.localName.toLowerCase();
      const childPath = path + "/" + childTag + "[" + index + "]";
      index += 1;
      if (SKIP.has(childTag) || TRANSPARENT.has(childTag)) continue;
      const childStyle = getComputedStyle(child);
      if (childStyle.display === "none") continue;
      const text = visit(child, childTag, childPath, ctx, childStyle);
      if (text === null || !INLINE.has(childTag)) {
        inlineOnly = false;
      } else if (childTag === "br") {
        parts.push(" ");
      } else {
        parts.push(text);
        if (NON_SPACE.test(text)) nParts += 1;
      }
    }
    if (!inlineOnly) return null;
    const text = parts.join("");
    if (nParts >= 2) pushBlock(text, el, tag, path, ctx, true);
    return text;
  }

  if (doc !== null) {
    const tag = doc.localName.toLowerCase();
    const style = getComputedStyle(doc);
    if (style.display !== "none") {
      const root = { boldTag: false, inLink: false, heading: 0 };
      visit(doc, tag, tag + "[0]", root, style);
    }
  }

  const keys = new Set(metaKeys);
  const meta = [];
  for (const m of document.querySelectorAll("meta")) {
    const property = (m.getAttribute("property") || "").trim().toLowerCase();
    const name = (m.getAttribute("name") || "").trim().toLowerCase();
    const key = keys.has(property) ? property : name;
    if (keys.has(key)) meta.push([key, m.getAttribute("content") || ""]);
  }

  return JSON.stringify({
    url: location.href,
    title: document.title,
    meta: meta,
    width: pageWidth,
    height: pageHeight,
    blocks: blocks,
  });
}
