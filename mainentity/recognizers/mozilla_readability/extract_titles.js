#!/usr/bin/env node
// Batch title extraction for mainentity's node peers: Mozilla Readability (the JavaScript original) or
// Defuddle, on jsdom.
//
// Usage: node extract_titles.js mozilla-readability|defuddle
//
// Protocol: once jsdom and the tool are loaded, the script writes {"ready":true} on stdout. Then it reads
// one JSON object per line on stdin, {"html": "...", "url": "..."}; one JSON object per line on
// stdout, in the same order, {"title": "..."} or {"error": "..."}. A page that fails gets an error line and
// the process goes on; it exits when stdin closes. Nothing else is written to stdout: the tools' console
// output goes to stderr.
//
// Offline: jsdom neither runs scripts nor loads sub-resources unless asked (we ask for neither), so no page
// triggers a network request. Readability's parse() computes the title (metadata: JSON-LD, og/twitter/dc
// meta, <title> cleaned of site names) before it looks for article content; when it finds no content it
// returns null, and we answer the title it had already computed, the value parse() would have returned.
// Defuddle's parse() is synchronous and runs no async extractor (those that fetch transcripts or posts from
// third-party APIs run only in parseAsync(), and useAsync: false turns them off there too); its title comes
// from schema.org data, meta tags and <title> cleaned of the site name.
"use strict";

const readline = require("node:readline");

for (const method of ["log", "info", "debug", "warn"]) {
  console[method] = console.error; // the tools' messages must not break the JSON lines on stdout
}

const { JSDOM, VirtualConsole } = require("jsdom");

// Tool name -> a loader returning extractTitle(document) -> string.
const TOOLS = {
  "mozilla-readability": () => {
    const { Readability } = require("@mozilla/readability");
    return (document) => {
      const reader = new Readability(document);
      const article = reader.parse();
      return article ? article.title : reader._articleTitle;
    };
  },
  defuddle: () => {
    const Defuddle = require("defuddle"); // the core bundle: new Defuddle(document, options).parse()
    return (document) => new Defuddle(document, { url: document.URL, useAsync: false }).parse().title;
  },
};

function makeDom(html, url) {
  // A silent virtual console: CSS parse errors and the like must not reach stdout or stderr.
  const options = { virtualConsole: new VirtualConsole() };
  if (url) {
    try {
      return new JSDOM(html, { ...options, url });
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // an invalid URL: parse without it
    }
  }
  return new JSDOM(html, options);
}

function answer(line, extractTitle) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    return { error: `bad request line: ${err.message}` };
  }
  if (typeof request.html !== "string") {
    return { error: "bad request line: 'html' must be a string" };
  }
  try {
    const dom = makeDom(request.html, typeof request.url === "string" ? request.url : "");
    try {
      const title = extractTitle(dom.window.document);
      return { title: typeof title === "string" ? title : "" };
    } finally {
      dom.window.close();
    }
  } catch (err) {
    return { error: `${err.name || "Error"}: ${err.message}` };
  }
}

const toolName = process.argv[2];
if (!Object.hasOwn(TOOLS, toolName)) {
  console.error(`unknown tool ${JSON.stringify(toolName)}; tools are ${Object.keys(TOOLS).join(", ")}`);
  process.exit(2);
}
const extractTitle = TOOLS[toolName]();
process.stdout.write(JSON.stringify({ ready: true }) + "\n");
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  process.stdout.write(JSON.stringify(answer(line, extractTitle)) + "\n");
});
