#!/usr/bin/env node
// A flip7ref engine protocol skeleton for node, with no dependencies
// (conformance/PROTOCOL.md). Run it with:
//   flip7ref conformance run --engine "node conformance/examples/engine.js"
// Places to fill in are marked FILL IN. As shipped, a tiny engine sits behind them:
// it scores Flip 7 lines (the `scoring` cases) and skips every other case.
"use strict";
const readline = require("readline");

// FILL IN: describe your engine. List the editions you play and, for each option,
// the readings you support (the first one listed is the one you play by default).
// An option you do not list is played at the table's default reading.
const IMPLEMENTATION = {
  name: "tiny-js-engine",
  version: "0.1.0",
  language: "javascript",
  editions: { flip7: { options: {} } },
  // protocol v2 capabilities (optional):
  players: [2, 18],          // the player counts you support
  positions: false,          // true once you can build a mid-round position from case.setup
};

// FILL IN: score one line of cards (edition table ids: "0".."12", "+2".."+10", "x2", ...).
function scoreLine(edition, options, line) {
  const numbers = line.filter((c) => /^\d+$/.test(c)).map(Number);
  let score = numbers.reduce((a, b) => a + b, 0);
  if (line.includes("x2")) score *= 2;
  for (const c of line) if (/^\+\d+$/.test(c)) score += Number(c.slice(1));
  const flip7 = new Set(numbers).size >= 7;
  if (flip7) score += 15;
  return { score, flip7 };
}

// FILL IN: play a case and report what you observed.
// case.setup gives the position (players, dealer, draw pile top first, lines...),
// case.actions the decisions in order and case.actors the seat taking each one.
// Draw the top card of case.setup.draw at every chance node; after the last action,
// draw until the next decision. Return an outcome (see PROTOCOL.md): events,
// statuses, lines, kept, round, round_scores, totals, next {player, legal}, winners,
// draw, discard_count. Throw Skip for what you do not support yet.
class Skip extends Error {}
function runCase(c) {
  if (c.kind === "scoring") return scoreLine(c.edition, c.options || {}, c.line);
  throw new Skip(`${c.kind} cases are not implemented yet`);
}

// ---------------------------------------------------------------- the protocol
// Nothing to change below: one JSON object per line on stdin and stdout.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function handle(request) {
  switch (request.cmd) {
    case "start":
      if (request.version !== 1 && request.version !== 2) {
        send({ error: `unsupported protocol version ${request.version}` });
        process.exit(0);
      }
      send({ version: request.version, implementation: IMPLEMENTATION });
      return;
    case "stop":
      process.exit(0);
    case "run":
      try {
        send({ seq: request.seq, outcome: runCase(request.case) });
      } catch (err) {
        if (err instanceof Skip) send({ seq: request.seq, skipped: true, message: err.message });
        else send({ seq: request.seq, errored: true, message: String(err && err.stack || err) });
      }
      return;
    default:
      send({ seq: request.seq ?? null, errored: true, message: `unknown command ${request.cmd}` });
  }
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    send({ seq: null, errored: true, message: `request is not JSON: ${err.message}` });
    return;
  }
  handle(request);
});
input.on("close", () => process.exit(0));
