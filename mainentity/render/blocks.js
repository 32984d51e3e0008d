// Text block extraction (Carullo & Binaghi 2010, KDIR, section 3.4.2), run inside the rendered page.
//
// Called by mainentity/render/browser.py as page.evaluate(<this file>, metaKeys). Works with JavaScript
// disabled in the page (Playwright evaluates in the page through the DevTools protocol).
//
// Blocks: every non-empty text node, plus one merged block for each element whose content is only text
// and inline formatting elements (INLINE below) and has at least two non-empty parts; the merged block
// comes right after the blocks of its content (the paper lists it last). Not walked: SKIP elements
// (<noscript> too when scripting is on) and display:none subtrees. Images and SKIP/display:none
// children neither split a merge nor add text.
//
// Shadow DOM: the walk follows the flat tree a person sees. An element with an open shadow root
// (declarative, <template shadowrootmode="open">, or attached by the page's script) shows that root's
// children, whose dom_paths go on under "<host path>/#shadow-root[0]"; a <slot> shows the host's light
// children assigned to it (their own light-DOM dom_paths, "<host path>/<tag>[i]") or else its fallback
// content, and is an inline element (display: contents); light children no slot takes are not walked.
// Closed shadow roots cannot be seen from the page: their host's light children are walked.
//
// Root un-hiding: a page is never hidden as a whole. `display: none`, a `visibility` other than
// "visible" or `opacity: 0` on <html> or <body> is anti-flicker or frame-busting CSS (e.g.
// `html { display: none }` until a script finds the page is not framed, or an A/B-testing
// `body { visibility: hidden !important }` until a script removes it) that the page's own, blocked,
// scripts would lift; it is overridden with inline `!important` styles before anything is measured.
// Hiding below <body> is kept as it is. This changes the page's DOM (screenshots rely on it).
//
// Script source shown as text: an old page's `document.write('<SCRIPT ...></SCRIPT>')` ends its
// script at the `</SCRIPT>` inside the string for the HTML parser, and the rest of the code becomes a
// text node (`'); //-->`). A text node with an escaped end tag (`<\/`), a `//-->`, a
// `document.write(` or a string concatenation (`' + name + '`) is not walked (neither a block nor a
// part of a merge), unless it is inside an element that shows code (pre, code, samp, kbd, ...).
//
// Ruby annotations are not the text they annotate: <rt> (furigana over a Japanese headline's kanji) and
// <rp> (the parentheses shown where ruby is not supported) are not walked, <ruby> and <rb> merge as inline
// elements, and a heading's innerText is read with its annotations set aside ("子どもへの", not
// "子こどもへの").
//
// Inline elements that are laid out as blocks of their own (a headline's lines in `display: block`
// spans) are joined to their neighbours with a space in a merge, as a person reads them.
//
// Segments: candidates finer or coarser than a text block, for the general recogniser (not the paper's
// blocks, which stay as they are). For each merged block: its "run"s, the maximal sequences of visible
// parts with one computed style (font size, weight, colour), when it has two or more (a title with a
// smaller subtitle span); and its "visible" text, the merge without the parts a person cannot see
// (visually hidden: clipped to 1 px, clip rect 0, opacity 0), when that differs (a drop cap with a
// screen-reader copy of its letter). For each heading element (h1-h6, role="heading") whose content is
// not inline-only: its "heading" text, the visible text of the whole element (a headline split over
// blocks). A segment's box is the union of its visible parts' boxes.
//
// Returns a JSON string:
//   {"url", "title", "meta": [[key, content], ...], "width", "height",
//    "blocks": [[text, tag, dom_path, font_size, font_weight, bold, x, y, width, height,
//                in_link, heading_level, hidden, merged], ...],
//    "segments": [[same fields..., kind], ...]}
// with booleans as 0/1, lengths in CSS px, y from the page top.
(metaKeys) => {
  const SKIP = new Set([
    "head", "script", "style", "template", "iframe", "noembed", "noframes", "canvas", "video", "audio",
    "rt", "rp",
  ]);
  // <noscript> content is displayed, and parsed as markup, only when scripting is off (the default
  // here): a person then sees it. The fragment parser tells which case this page is in.
  const probe = document.createElement("noscript");
  probe.innerHTML = "<b></b>";
  if (probe.firstChild === null || probe.firstChild.nodeType !== Node.ELEMENT_NODE) SKIP.add("noscript");
  const INLINE = new Set([
    "a", "abbr", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font",
    "i", "ins", "kbd", "mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
    "sup", "time", "tt", "u", "var", "wbr", "slot", "ruby", "rb",
  ]);
  const TRANSPARENT = new Set(["img"]);
  // Script source shown as text (see above), outside elements that show code as code.
  const SCRIPT_TEXT = /<\\\/[A-Za-z]|\/\/[ \t\r\n]*-->|document\.write(?:ln)?[ \t\r\n]*\(|['"][ \t\r\n]*\+[ \t\r\n]*[A-Za-z_$][A-Za-z0-9_$.]*[ \t\r\n]*\+[ \t\r\n]*['"]/;
  const CODE = new Set(["pre", "code", "samp", "kbd", "tt", "xmp", "listing", "plaintext", "textarea"]);
  const HEADING = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
  // ARIA headings (role="heading", aria-level default 2) count as headings of their level.
  function headingLevel(el, tag) {
    if (HEADING[tag]) return HEADING[tag];
    if ((el.getAttribute("role") || "").trim().toLowerCase() !== "heading") return 0;
    const level = parseInt(el.getAttribute("aria-level") || "2", 10);
    return level >= 1 && level <= 6 ? level : 2;
  }
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
  const segments = [];
  const round2 = (v) => Math.round(v * 100) / 100;

  function nodeRect(node) {
    range.selectNodeContents(node);
    return range.getBoundingClientRect();
  }

  // A box entirely outside the page rectangle [0, pageWidth] x [0, pageHeight] (CSS px).
  function offPage(r) {
    const x = r.left + scrollX, y = r.top + scrollY;
    return x + r.width <= 0 || y + r.height <= 0 || x >= pageWidth || y >= pageHeight;
  }

  // Hidden rule: visibility other than "visible", a zero-width or zero-height box, or a box off the page.
  function blockRow(text, r, tag, path, ctx) {
    const x = r.left + scrollX;
    const y = r.top + scrollY;
    const hidden = ctx.visibility !== "visible" || r.width <= 0 || r.height <= 0 || offPage(r);
    return [
      text.replace(SPACE, " ").trim(), tag, path, ctx.fontSize, ctx.fontWeight,
      ctx.fontWeight >= 600 || ctx.boldTag ? 1 : 0, round2(x), round2(y), round2(r.width),
      round2(r.height), ctx.inLink ? 1 : 0, ctx.heading, hidden ? 1 : 0,
    ];
  }

  function pushBlock(text, node, tag, path, ctx, merged) {
    blocks.push([...blockRow(text, nodeRect(node), tag, path, ctx), merged ? 1 : 0]);
  }

  // Visually hidden: the element (or an ancestor up to the merged element) is clipped away, squeezed
  // into at most 1 px with overflow hidden, positioned entirely off the page (left: -9999px), or fully
  // transparent, yet still laid out.
  const seenHidden = new Map();
  function visuallyHidden(el, style) {
    if (seenHidden.has(el)) return seenHidden.get(el);
    const squeezable = style.overflowX !== "visible" || style.overflowY !== "visible";
    const positioned = style.position === "absolute" || style.position === "fixed";
    const r = squeezable || positioned ? el.getBoundingClientRect() : null;
    const clipped = style.clip.startsWith("rect(0") || /inset\((50|100)%/.test(style.clipPath) ||
      (squeezable && (r.width <= 1 || r.height <= 1)) || (positioned && offPage(r));
    const result = clipped || parseFloat(style.opacity) === 0 || style.visibility !== "visible";
    seenHidden.set(el, result);
    return result;
  }

  function unionRect(pieces) {
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const piece of pieces) {
      if (piece.node === null) continue;
      const r = nodeRect(piece.node);
      if (r.width <= 0 || r.height <= 0) continue;
      left = Math.min(left, r.left); top = Math.min(top, r.top);
      right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
    }
    if (left === Infinity) return { left: 0, top: 0, width: 0, height: 0 };
    return { left: left, top: top, width: right - left, height: bottom - top };
  }

  // A heading's innerText without its ruby annotations (hidden for the reading, then restored).
  function headingText(el) {
    const notes = [...el.querySelectorAll("rt, rp")];
    const styles = notes.map((note) => note.getAttribute("style"));
    for (const note of notes) note.style.setProperty("display", "none", "important");
    const text = el.innerText || "";
    notes.forEach((note, i) => {
      if (styles[i] === null) note.removeAttribute("style");
      else note.setAttribute("style", styles[i]);
    });
    return text;
  }

  function pushSegment(text, pieces, tag, path, ctx, kind) {
    if (!NON_SPACE.test(text)) return;
    segments.push([...blockRow(text, unionRect(pieces), tag, path, ctx), 0, kind]);
  }

  // Runs and visible text of a merged element from its pieces ({text, node, style key, visible}).
  function pushMergeSegments(text, pieces, tag, path, ctx) {
    const visible = pieces.filter((piece) => piece.visible);
    const visibleText = visible.map((piece) => piece.text).join("");
    if (visibleText.replace(SPACE, " ").trim() !== text.replace(SPACE, " ").trim()) {
      pushSegment(visibleText, visible, tag, path, ctx, "visible");
    }
    const runs = [];
    for (const piece of visible) {
      const last = runs[runs.length - 1];
      if (last !== undefined && (piece.key === null || piece.key === last.key)) {
        last.pieces.push(piece);
      } else if (piece.key !== null) {
        runs.push({ key: piece.key, pieces: [piece], ctx: piece.ctx });
      }
    }
    if (runs.length < 2) return;
    for (const run of runs) {
      const runText = run.pieces.map((piece) => piece.text).join("");
      pushSegment(runText, run.pieces.filter((piece) => piece.key !== null), tag, path, run.ctx, "run");
    }
  }

  // An inline element laid out as a block of its own (display: block, flex, ...; not floated or
  // positioned out of the flow, as a drop cap is): the lines of a headline in block spans.
  const BLOCK_DISPLAY = new Set(["block", "flex", "grid", "list-item", "table", "flow-root"]);
  function ownLine(style) {
    return BLOCK_DISPLAY.has(style.display) && style.cssFloat === "none" &&
      style.position !== "absolute" && style.position !== "fixed";
  }

  // The children a person sees of an element, in the flat tree, as [node, dom_path] (null for
  // non-elements): an open shadow root's children for its host (paths under "<host>/#shadow-root[0]"),
  // the nodes assigned to a slot (their light-DOM paths under the host) or else its fallback children,
  // otherwise the element's own children. A host's light children that no slot takes are not shown.
  const hostPaths = new Map();
  function shownChildren(el, tag, path) {
    const shown = [];
    let parent = el;
    let base = path;
    if (el.shadowRoot) {
      hostPaths.set(el, path);
      parent = el.shadowRoot;
      base = path + "/#shadow-root[0]";
    } else if (tag === "slot" && typeof el.assignedNodes === "function" && el.assignedNodes().length) {
      for (const node of el.assignedNodes()) {
        shown.push([node, node.nodeType === Node.ELEMENT_NODE ? lightPath(node) : null]);
      }
      return shown;
    }
    let index = 0;
    for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeType !== Node.ELEMENT_NODE) {
        shown.push([child, null]);
        continue;
      }
      shown.push([child, base + "/" + child.localName.toLowerCase() + "[" + index + "]"]);
      index += 1;
    }
    return shown;
  }

  // The dom_path of a host's light child (a slotted element): the host's path and its element index.
  function lightPath(node) {
    let index = 0;
    for (let sibling = node.previousElementSibling; sibling !== null; sibling = sibling.previousElementSibling) {
      index += 1;
    }
    return hostPaths.get(node.parentNode) + "/" + node.localName.toLowerCase() + "[" + index + "]";
  }

  // Walk one displayed element; returns its pieces (raw text parts with their node, style key and
  // visibility) when its content is only text and inline formatting elements, else null. `path` is
  // its dom_path.
  function visit(el, tag, path, parent, style) {
    const ownLevel = headingLevel(el, tag);
    const ctx = {
      fontSize: parseFloat(style.fontSize) || 0,
      fontWeight: parseInt(style.fontWeight, 10) || 400,
      visibility: style.visibility,
      boldTag: parent.boldTag || tag === "b" || tag === "strong",
      inLink: parent.inLink || (tag === "a" && el.hasAttribute("href")),
      inCode: parent.inCode || CODE.has(tag),
      heading: ownLevel || parent.heading,
    };
    const visible = parent.visible && !visuallyHidden(el, style);
    const key = ctx.fontSize + "/" + ctx.fontWeight + "/" + style.color;
    const pieces = [];
    let inlineOnly = true;
    let nParts = 0;
    for (const [child, childPath] of shownChildren(el, tag, path)) {
      if (child.nodeType === Node.TEXT_NODE || child.nodeType === Node.CDATA_SECTION_NODE) {
        const data = child.data;
        if (!ctx.inCode && SCRIPT_TEXT.test(data)) continue;  // script source the parser let out
        const blank = !NON_SPACE.test(data);
        pieces.push({ text: data, node: blank ? null : child, key: blank ? null : key, visible: visible, ctx: ctx });
        if (!blank) {
          nParts += 1;
          pushBlock(data, child, tag, path, ctx, false);
        }
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      const childTag = child.localName.toLowerCase();
      if (SKIP.has(childTag) || TRANSPARENT.has(childTag)) continue;
      const childStyle = getComputedStyle(child);
      if (childStyle.display === "none") continue;
      const childPieces = visit(child, childTag, childPath, { ...ctx, visible: visible }, childStyle);
      if (childPieces === null || !INLINE.has(childTag)) {
        inlineOnly = false;
      } else if (childTag === "br") {
        pieces.push({ text: " ", node: null, key: null, visible: true, ctx: ctx });
      } else if (ownLine(childStyle)) {  // a line of its own: a space on each side in the merge
        const space = { text: " ", node: null, key: null, visible: true, ctx: ctx };
        pieces.push(space, ...childPieces, space);
        if (childPieces.some((piece) => piece.node !== null)) nParts += 1;
      } else {
        pieces.push(...childPieces);
        if (childPieces.some((piece) => piece.node !== null)) nParts += 1;
      }
    }
    if (!inlineOnly) {
      if (ownLevel) pushSegment(headingText(el), [{ node: el }], tag, path, ctx, "heading");
      return null;
    }
    const text = pieces.map((piece) => piece.text).join("");
    if (nParts >= 2) {
      pushBlock(text, el, tag, path, ctx, true);
      pushMergeSegments(text, pieces, tag, path, ctx);
    }
    return pieces;
  }

  if (doc !== null) {
    const tag = doc.localName.toLowerCase();
    const style = getComputedStyle(doc);
    if (style.display !== "none") {
      const root = { boldTag: false, inLink: false, inCode: false, heading: 0, visible: true };
      visit(doc, tag, tag + "[0]", root, style);
    }
  }

  const keys = new Set(metaKeys);
  const meta = [];
  for (const m of document.querySelectorAll("meta")) {
    const property = (m.getAttribute("property") || "").trim().toLowerCase();
    const name = (m.getAttribute("name") || "").trim().toLowerCase();
    const key = keys.has(property) ? property : name;
    // pages saved by the Postlight parser keep each meta tag's content in "value" (text.py's meta_content)
    const content = m.hasAttribute("content") ? m.getAttribute("content") : m.getAttribute("value");
    if (keys.has(key)) meta.push([key, content || ""]);
  }

  return JSON.stringify({
    url: location.href,
    title: document.title,
    meta: meta,
    width: pageWidth,
    height: pageHeight,
    blocks: blocks,
    segments: segments,
  });
}
