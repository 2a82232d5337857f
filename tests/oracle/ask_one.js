// Answer single questions from npm robots-parser, for minimising a disagreement:
// JSON lines {"body_hex", "agent", "url"} on stdin, one "1"/"0"/"U" line each out,
// the library asked as robots_parser_answers.js asks it.
"use strict";
const readline = require("readline");
const robotsParser = require("robots-parser");

function robotsUrlFor(url) {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/robots.txt`;
  } catch (e) {
    return "https://example.com/robots.txt";
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const q = JSON.parse(line);
  const text = Buffer.from(q.body_hex, "hex").toString("utf8");
  const a = robotsParser(robotsUrlFor(q.url), text).isAllowed(q.url, q.agent);
  process.stdout.write((a === undefined ? "U" : a ? "1" : "0") + "\n");
});
