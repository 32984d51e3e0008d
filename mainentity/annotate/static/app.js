// mainentity annotate: label the main entity of each page of a site dump.
// Every change is sent to the server at once (POST api/labels), which writes it to the dump's manifest.jsonl.
"use strict";

const $ = (id) => document.getElementById(id);

const app = {
  order: "manifest",
  rows: [],        // pages in the current order: {path, status, score, answer}
  index: 0,        // position in rows
  view: null,      // the page shown: {path, labels, skipped, status, version, blocks, model, ...}
  candidates: [],  // clickable boxes of the page: {text, x, y, width, height, model}
  modelBox: null,  // the model's answer, drawn dashed with its score
  hits: [],        // candidates under the last click, smallest first
  hitIndex: 0,
  picked: null,
  undo: [],        // changes made in this tab: {path, before: {labels, skipped}, version}
  queue: Promise.resolve(),  // actions run one after the other, in the order of the keys pressed
  fit: localStorage.getItem("mainentity-annotate-fit") === "1",  // screenshot scaled to the pane's width
  scale: 1,        // screenshot pixels shown per CSS px of the page (below 1 when fitted to a narrow pane)
};

const collapse = (text) => text.replace(/\s+/g, " ").trim();

async function call(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, options);
  } catch (error) {
    return { ok: false, status: 0, data: { error: `the annotate server does not answer (${error})` } };
  }
  let data;
  try {
    data = await response.json();
  } catch (error) {
    data = { error: `${response.status} ${response.statusText}` };
  }
  return { ok: response.ok, status: response.status, data };
}

function say(text, ok = false) {
  $("message").textContent = text;
  $("message").className = ok ? "ok" : "";
}

function showProgress(progress) {
  const total = Math.max(progress.total, 1);
  document.querySelector(".bar .labeled").style.width = `${(100 * progress.labeled) / total}%`;
  document.querySelector(".bar .skipped").style.width = `${(100 * progress.skipped) / total}%`;
  $("progress-text").textContent =
    `${progress.labeled} labeled · ${progress.skipped} skipped · ${progress.left} left (of ${progress.total})`;
}

async function loadRows(keepPath) {
  const result = await call("GET", `api/pages?order=${encodeURIComponent(app.order)}`);
  if (!result.ok) {
    say(result.data.error);
    return;
  }
  app.rows = result.data.pages;
  showProgress(result.data.progress);
  const index = keepPath
    ? app.rows.findIndex((row) => row.path === keepPath)
    : app.rows.findIndex((row) => row.status === "left");
  app.index = Math.max(index, 0);
}

async function show(index) {
  if (!app.rows.length) return;
  app.index = Math.min(Math.max(index, 0), app.rows.length - 1);
  const path = app.rows[app.index].path;
  $("position").textContent = `${app.index + 1} / ${app.rows.length}`;
  $("page-path").textContent = path;
  showLoading();
  const result = await call("GET", `api/page?path=${encodeURIComponent(path)}`);
  if (app.rows[app.index].path !== path) return; // moved on meanwhile
  delete document.body.dataset.loading;
  if (!result.ok) {
    $("page-status").textContent = "error";
    $("label-list").replaceChildren();
    say(result.data.error);
    return;
  }
  app.view = result.data;
  app.candidates = app.view.blocks.map((block) => ({ ...block, model: false }));
  app.modelBox = null;
  const model = app.view.model;
  if (model && model.box && model.text) {
    const [x, y, width, height] = model.box;
    app.modelBox = { text: model.text, x, y, width, height, model: true };
    // the model's answer is clickable itself only when no text block says the same (a title segment)
    if (!app.candidates.some((c) => c.text === model.text)) app.candidates.push(app.modelBox);
  }
  app.hits = [];
  app.picked = null;
  renderView(true);
  loadShot(path);
  document.body.dataset.page = path;
}

// While a page is read (a cold render takes seconds), the panel shows nothing of the page before it:
// its path with the previous page's URL, labels or screenshot would mislead.
function showLoading() {
  document.body.dataset.loading = "";
  $("page-status").textContent = "loading…";
  $("page-status").className = "status";
  $("page-url").textContent = "";
  $("model").hidden = true;
  const item = document.createElement("li");
  item.className = "empty";
  item.textContent = "reading and rendering the page…";
  $("label-list").replaceChildren(item);
  $("label-input").value = "";
  $("block-text").className = "hint";
  $("block-text").textContent = "";
  app.candidates = [];
  app.modelBox = null;
  delete $("shot").dataset.loaded;
  $("boxes").replaceChildren();
  $("shot-img").onload = $("shot-img").onerror = null;
  $("shot-img").removeAttribute("src");
  $("shot-status").textContent = "rendering the page…";
}

// Fit to width: the screenshot (and its boxes) scaled down to the pane's width, so a narrow window
// shows the whole width of the page; f toggles it, and the choice is kept for the next visit.
function applyFit() {
  const img = $("shot-img");
  const pane = $("shot-pane");
  const room = pane.clientWidth - 24;  // the pane's padding
  app.scale = app.fit && img.naturalWidth > room ? room / img.naturalWidth : 1;
  const shot = $("shot");
  shot.style.transform = app.scale === 1 ? "" : `scale(${app.scale})`;
  shot.style.marginRight = `${-(1 - app.scale) * img.naturalWidth}px`;
  shot.style.marginBottom = `${-(1 - app.scale) * img.naturalHeight}px`;
  $("fit").setAttribute("aria-pressed", String(app.fit));
}

function toggleFit() {
  app.fit = !app.fit;
  localStorage.setItem("mainentity-annotate-fit", app.fit ? "1" : "0");
  applyFit();
  say(app.fit ? "Fitted to the window's width (f: actual size)." : "Actual size (f: fit to width).", true);
}

function loadShot(path) {
  const img = $("shot-img");
  delete $("shot").dataset.loaded;
  $("shot-status").textContent = app.view.render_error || "rendering the page…";
  img.onload = () => {
    if (!app.view || app.view.path !== path) return;
    $("shot-status").textContent = "";
    applyFit();
    $("shot").dataset.loaded = path;
    drawBoxes();
    prefetch(app.index + 1);
  };
  img.onerror = () => {
    $("shot-status").textContent = `no screenshot: ${app.view.render_error || "the page could not be rendered"}`;
  };
  img.src = `api/screenshot?path=${encodeURIComponent(path)}`;
}

function prefetch(index) {
  if (index < app.rows.length) new Image().src = `api/screenshot?path=${encodeURIComponent(app.rows[index].path)}`;
}

function renderView(resetInput) {
  const view = app.view;
  $("page-status").textContent = view.status;
  $("page-status").className = `status ${view.status}`;
  $("page-url").textContent = view.url;
  const model = view.model;
  $("model").hidden = !model;
  if (model) {
    $("model-answer").textContent = model.text || "(no answer)";
    $("model-answer").disabled = !model.text;
    $("model-score").textContent = model.error ? model.error : model.score === null ? "" : `score ${model.score.toFixed(2)}`;
  }
  const list = $("label-list");
  list.replaceChildren();
  for (const label of view.labels) {
    const item = document.createElement("li");
    item.append(label);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.title = "Remove this label";
    remove.addEventListener("click", () => removeLabel(label));
    item.append(remove);
    list.append(item);
  }
  if (!view.labels.length) {
    const item = document.createElement("li");
    item.className = "empty";
    item.textContent = view.skipped ? "skipped, no label" : "no label yet";
    list.append(item);
  }
  if (resetInput) {
    $("label-input").value = !view.labels.length && model && model.text ? model.text : "";
    $("block-text").className = "hint";
    $("block-text").textContent =
      "Click a text block on the page. Select part of its text here to label just that part.";
  }
  drawBoxes();
}

function drawBoxes() {
  const boxes = $("boxes");
  boxes.replaceChildren();
  if (!app.view || $("shot").dataset.loaded !== app.view.path) return;
  const drawn = app.modelBox && !app.candidates.includes(app.modelBox) ? [...app.candidates, app.modelBox] : app.candidates;
  for (const candidate of drawn) {
    const box = document.createElement("div");
    box.className = "box";
    if (candidate.model) {
      box.classList.add("model");
      const score = app.view.model.score;
      box.dataset.score = score === null ? "model" : `model ${score.toFixed(2)}`;
    }
    if (app.view.labels.includes(candidate.text)) box.classList.add("labeled");
    if (candidate === app.picked) box.classList.add("picked");
    box.style.left = `${candidate.x}px`;
    box.style.top = `${candidate.y}px`;
    box.style.width = `${candidate.width}px`;
    box.style.height = `${candidate.height}px`;
    box.title = candidate.text;
    boxes.append(box);
  }
}

function pick(candidate) {
  app.picked = candidate;
  $("label-input").value = candidate.text;
  $("block-text").className = "";
  $("block-text").textContent = candidate.text;
  drawBoxes();
}

$("boxes").addEventListener("click", (event) => {
  const rect = $("boxes").getBoundingClientRect();
  const x = (event.clientX - rect.left) / app.scale;  // CSS px of the page, as the boxes are
  const y = (event.clientY - rect.top) / app.scale;
  const hits = app.candidates
    .filter((c) => x >= c.x && x <= c.x + c.width && y >= c.y && y <= c.y + c.height)
    .sort((a, b) => a.width * a.height - b.width * b.height);
  if (!hits.length) {
    say("No text block here.");
    return;
  }
  const same = hits.length === app.hits.length && hits.every((hit, i) => hit === app.hits[i]);
  app.hitIndex = same ? (app.hitIndex + 1) % hits.length : 0;
  app.hits = hits;
  pick(hits[app.hitIndex]);
  say(hits.length > 1 ? `Block ${app.hitIndex + 1} of ${hits.length} here: click again for the enclosing one.` : "", true);
});

// Selecting part of the picked block's text labels just that part.
document.addEventListener("selectionchange", () => {
  const selection = window.getSelection();
  const block = $("block-text");
  if (!selection.rangeCount || selection.isCollapsed || block.className === "hint") return;
  if (!block.contains(selection.anchorNode) || !block.contains(selection.focusNode)) return;
  const text = collapse(selection.toString());
  if (text) $("label-input").value = text;
});

async function save(labels, skipped) {
  const view = app.view;
  const before = { labels: view.labels, skipped: view.skipped };
  const result = await call("POST", "api/labels",
    { path: view.path, version: view.version, main_entity: labels, skipped });
  if (result.status === 409) {
    applyState(view.path, result.data);
    say("Another tab or process changed this page's labels: they are shown as they are now. Nothing was saved.");
    return false;
  }
  if (!result.ok) {
    say(result.data.error);
    return false;
  }
  app.undo.push({ path: view.path, before, version: result.data.version });
  applyState(view.path, result.data);
  return true;
}

function applyState(path, state) {
  const row = app.rows.find((r) => r.path === path);
  if (row) row.status = state.status;
  if (state.progress) showProgress(state.progress);
  if (app.view && app.view.path === path) {
    Object.assign(app.view, { labels: state.labels, skipped: state.skipped, status: state.status, version: state.version });
    renderView(false);
  }
}

async function next() {
  if (app.index + 1 >= app.rows.length) {
    say("That was the last page of this order.", true);
    return;
  }
  await show(app.index + 1);
}

async function accept(text) {
  const labels = text ? [text] : app.view.labels;
  if (!labels.length) {
    say("Nothing to accept: click a block, select text or type a label (s skips the page).");
    return;
  }
  const same = JSON.stringify(labels) === JSON.stringify(app.view.labels) && !app.view.skipped;
  if (!same && !(await save(labels, false))) return;
  say(`Saved: ${labels.join(" | ")}`, true);
  $("label-input").blur();
  await next();
}

async function addAlternative(text) {
  if (!text) {
    say("Type, click or select the alternative first.");
    return;
  }
  if (app.view.labels.includes(text)) {
    say("That label is already there.");
    return;
  }
  if (await save([...app.view.labels, text], false)) {
    if (collapse($("label-input").value) === text) $("label-input").value = "";
    say(`Added: ${text}`, true);
  }
}

async function removeLabel(label) {
  if (await save(app.view.labels.filter((l) => l !== label), app.view.skipped)) say(`Removed: ${label}`, true);
}

// A labeled page is not marked skipped: s keeps its labels (× removes one) and goes on, so the page
// still counts as labeled.
async function skip() {
  if (app.view.labels.length) {
    say(`Not skipped: the page keeps its label${app.view.labels.length > 1 ? "s" : ""} ` +
        `(${app.view.labels.join(" | ")}); × removes one.`, true);
    await next();
    return;
  }
  if (!app.view.skipped && !(await save([], true))) return;
  say("Skipped.", true);
  await next();
}

async function undo() {
  const last = app.undo.pop();
  if (!last) {
    say("Nothing to undo in this tab.");
    return;
  }
  const result = await call("POST", "api/labels",
    { path: last.path, version: last.version, main_entity: last.before.labels, skipped: last.before.skipped });
  if (result.status === 409) {
    applyState(last.path, result.data);
    say(`Cannot undo: ${last.path} was changed since, in another tab or process.`);
    return;
  }
  if (!result.ok) {
    app.undo.push(last);
    say(result.data.error);
    return;
  }
  applyState(last.path, result.data);
  const index = app.rows.findIndex((row) => row.path === last.path);
  if (index >= 0 && index !== app.index) await show(index);
  say(`Undone: ${last.path}`, true);
}

// Queues an action after those of the keys pressed before it, so that nothing typed is lost or
// interleaved while the server writes. ``action`` gets the text box's text as it was when the key was
// pressed, unless the page shown has changed since (then the text box's text as it is by then, e.g. the
// next page's pre-selected answer for a second Enter).
function run(action) {
  const path = app.view ? app.view.path : null;
  const text = collapse($("label-input").value);
  app.queue = app.queue
    .then(() => {
      if (!app.view) return undefined;
      return action(app.view.path === path ? text : collapse($("label-input").value));
    })
    .catch((error) => say(`Error: ${error}`));
  return app.queue;
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const typing = event.target === $("label-input");
  if (event.key === "Enter") {
    if (event.target.tagName === "SELECT" || event.target.tagName === "SUMMARY") return;
    event.preventDefault();
    run(accept);
    return;
  }
  if (typing) {
    if (event.key === "Escape") $("label-input").blur();
    return;
  }
  if (event.target.tagName === "SELECT") return;
  const actions = { j: next, k: () => show(app.index - 1), s: skip, u: undo, a: addAlternative, f: toggleFit };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    run(action);
  }
});

$("accept").addEventListener("click", () => run(accept));
$("add").addEventListener("click", () => run(addAlternative));
$("skip").addEventListener("click", () => run(skip));
$("undo").addEventListener("click", () => run(undo));
$("next").addEventListener("click", () => run(next));
$("fit").addEventListener("click", toggleFit);
window.addEventListener("resize", applyFit);
$("prev").addEventListener("click", () => run(() => show(app.index - 1)));
$("model-answer").addEventListener("click", () => {
  const model = app.view.model;
  const candidate = app.candidates.find((c) => c.text === model.text);
  if (candidate) pick(candidate);
  else $("label-input").value = model.text;
});
$("order").addEventListener("change", async (event) => {
  app.order = event.target.value;
  event.target.blur();
  await loadRows(app.view ? app.view.path : null);
  await run(() => show(app.index));
});

async function init() {
  const result = await call("GET", "api/session");
  if (!result.ok) {
    say(result.data.error);
    return;
  }
  const session = result.data;
  $("dump").textContent = `${session.site_dir}${session.model ? ` · model: ${session.model}` : ""}` +
    (session.n_unreadable ? ` · ${session.n_unreadable} unreadable page(s) left out` : "");
  for (const option of $("order").options) option.disabled = !session.orders.includes(option.value);
  app.order = session.default_order;
  $("order").value = app.order;
  showProgress(session.progress);
  await loadRows(null);
  await show(app.index);
}

init();
