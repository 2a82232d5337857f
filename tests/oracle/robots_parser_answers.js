// Adds npm robots-parser 3.0.1's answers to the question file profile_answers.py wrote.
//
// Each body is decoded as fetch's Response.text() does (UTF-8, U+FFFD for invalid
// sequences) and parsed with robotsParser(robotsUrl, text), robotsUrl being the
// question URL's own origin + "/robots.txt", so the library's same-origin check
// passes; then isAllowed(url, agent), getMatchingLineNumber(url, agent) and
// getCrawlDelay(agent), as Browsertrix crawler and Crawlee call them.
//
// Usage: node robots_parser_answers.js SHARED_DIR IN_FILE OUT_FILE
// Output: the input records plus "robots_parser" (one char per question: "1", "0",
// or "U" when the library answers undefined), "robots_parser_lines" and
// "robots_parser_delay" (per agent, null when none).

"use strict";
const fs = require("fs");
const path = require("path");
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

async function main() {
  const [shared, inFile, outFile] = process.argv.slice(2);
  const out = fs.createWriteStream(outFile + ".part");
  const lines = readline.createInterface({ input: fs.createReadStream(inFile), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const rec = JSON.parse(line);
    const bytes = rec.file
      ? fs.readFileSync(path.join(shared, "corpus", "robots", rec.file))
      : Buffer.from(rec.body_hex, "hex");
    const text = bytes.toString("utf8");
    const parsers = new Map();
    const parserFor = (url) => {
      const robotsUrl = robotsUrlFor(url);
      if (!parsers.has(robotsUrl)) parsers.set(robotsUrl, robotsParser(robotsUrl, text));
      return parsers.get(robotsUrl);
    };
    let allowed = "";
    const matching = [];
    for (const agent of rec.agents) {
      for (const url of rec.urls) {
        const r = parserFor(url);
        const a = r.isAllowed(url, agent);
        allowed += a === undefined ? "U" : a ? "1" : "0";
        const n = r.getMatchingLineNumber(url, agent);
        matching.push(n);
      }
    }
    const any = parserFor("https://example.com/");
    rec.robots_parser = allowed;
    rec.robots_parser_lines = matching;
    rec.robots_parser_delay = rec.agents.map((agent) => {
      const d = any.getCrawlDelay(agent);
      return d === undefined ? null : d;
    });
    out.write(JSON.stringify(rec) + "\n");
  }
  await new Promise((resolve) => out.end(resolve));
  fs.renameSync(outFile + ".part", outFile);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
