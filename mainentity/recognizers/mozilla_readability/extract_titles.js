#!/usr/bin/env node
// Batch title extraction with Mozilla Readability (the JavaScript original) for mainentity.
//
// Protocol: once jsdom and Readability are loaded, the script writes {"ready":true} on stdout. Then it reads
// one JSON object per line on stdin, {"html": "...", "url": "..."}; one JSON object per line on
// stdout, in the same order, {"title": "..."} or {"error": "..."}. A page that fails gets an error line and
// the process goes on; it exits when stdin closes. Nothing else is written to stdout.
//
// Offline: jsdom neither runs scripts nor loads sub-resources unless asked (we ask for neither), so no page
// triggers a network request. Readability's parse() computes the title (metadata: JSON-LD, og/twitter/dc
// meta, <title> cleaned of site names) before it looks for article content; when it finds no content it
// returns null, and we answer the title it had already computed, the value parse() would have returned.
"use strict";

const readline = require("node:readline");
const { JSDOM, VirtualConsole } = require("jsdom");
const { Readability } = require("@mozilla/readability");

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

function extractTitle(html, url) {
  const dom = makeDom(html, url);
  try {
    const reader = new Readability(dom.window.document);
    const article = reader.parse();
    const title = article ? article.title : reader._articleTitle;
    return typeof title === "string" ? title : "";
  } finally {
    dom.window.close();
  }
}

function answer(line) {
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
    return { title: extractTitle(request.html, typeof request.url === "string" ? request.url : "") };
  } catch (err) {
    return { error: `${err.name || "Error"}: ${err.message}` };
  }
}

process.stdout.write(JSON.stringify({ ready: true }) + "\n");
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  process.stdout.write(JSON.stringify(answer(line)) + "\n");
});
