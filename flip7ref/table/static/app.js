// The table referee page: plain JavaScript, no build step, no libraries.
// It renders what GET /api/games/{id} returns and posts one step at a time,
// always with the version it last saw (a stale step gets 409 and the new state).
// Every talk to the server goes through one function, api(path, body).
"use strict";

const params = new URLSearchParams(location.search);
const TOKEN = params.get("token") || "";
let META = null;
let LANG = localStorage.getItem("flip7ref-lang") || "en";
let G = null;        // the game's view
let busy = false;
// The static build (flip7ref table --static) has no server to route /game/{id}:
// its standalone.js answers the API in the browser, and a game's page is ?game={id}.
const STANDALONE = !!window.FLIP7REF_STANDALONE;

function gameHref(id, token) {
  if (STANDALONE) return "?game=" + encodeURIComponent(id);
  return "/game/" + id + (token ? "?token=" + encodeURIComponent(token) : "");
}
function go(href) {
  if (!STANDALONE) { location.href = href; return; }
  history.pushState(null, "", href);  // the static build keeps its Python worker: no page load
  route();
}
function homeHref() { return STANDALONE ? "./" : TOKEN ? "/?token=" + encodeURIComponent(TOKEN) : "/"; }
function pageGameId() {
  if (STANDALONE) return new URLSearchParams(location.search).get("game");
  const m = location.pathname.match(/^\/game\/([A-Za-z0-9_-]+)$/);
  return m ? m[1] : null;
}
let drawnAt = 0;     // when the page last redrew the game (performance.now())
let downAt = 0;      // when the last touch or press began
let swapFirst = null;  // Vengeance Swap: the first card picked, "seat index"
let seenRoundEnd = Number(sessionStorage.getItem("flip7ref-round-seen") || 0);
let waiting = false; // a poll found a newer game while a field was being typed in
const SETTLE_MS = 600;  // a second tap on the same spot this soon is ignored (a double tap), unless on the same card

function t(key, vars) {
  const texts = (META && (META.texts[LANG] || META.texts.en)) || {};
  let s = texts[key] || (META && META.texts.en[key]) || key;
  for (const [k, v] of Object.entries(vars || {})) s = s.replace("{" + k + "}", v);
  return s;
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}

function say(text, info, extra) {
  const m = document.getElementById("msg");
  m.className = info ? "info" : "";
  m.replaceChildren();
  if (text) m.append(h("span", {}, text));
  if (extra) m.append(" ", extra);
}

// The one function that talks to the server (the static build replaces it).
async function api(path, body) {
  const opts = { headers: { "X-Table-Token": TOKEN } };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try { res = await fetch(path, opts); } catch (e) {
    const err = new Error(t("offline")); err.offline = true; throw err;  // not a rules refusal
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: res.status + " " + res.statusText }; }
  if (!res.ok) { const err = new Error(data.error || res.statusText); err.status = res.status; err.data = data; throw err; }
  return data;
}

function withToken(path) { return TOKEN ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN) : path; }

function cardName(id) { return (G && G.card_names[id]) || id; }
function chip(id) { return h("span", { class: "chip " + ((G && G.categories[id]) || "") }, cardName(id)); }
function seatName(s) { return G.names[s] !== undefined ? G.names[s] : "seat " + s; }

// A tap that began before the page redrew, or lands where the last one did just after
// it (a double tap: the second tap falls on the button that appeared under the finger,
// a "0" nobody drew), is not meant for the button now there: ignore it.
// What the page shows tells a slip from two deals: a quick second tap on the same card
// (two 9s dealt to two players, one after the other) is taken when the page still asks for
// a card, and the page says so at once with a one-tap undo (repeatCard).
let lastTap = { at: -1e9, x: -1e3, y: -1e3, card: null, to: null };
document.addEventListener("pointerdown", () => { downAt = performance.now(); }, true);
document.addEventListener("touchstart", () => { downAt = performance.now(); }, { capture: true, passive: true });
document.addEventListener("click", (e) => {
  const button = G && e.target.closest ? e.target.closest("#app button") : null;
  if (!button) return;
  const now = performance.now();
  const pointer = e.detail > 0;  // 0: a key press (Enter, Space) on a focused button
  const near = Math.abs(e.clientX - lastTap.x) < 48 && Math.abs(e.clientY - lastTap.y) < 48;
  const card = button.matches("button.card") ? button.dataset.card : null;
  if (pointer && card && card === lastTap.card && near && now - lastTap.at < SETTLE_MS) {
    e.preventDefault(); e.stopImmediatePropagation();
    lastTap.at = now;
    repeatCard(card, lastTap.to);
    return;
  }
  if (busy || (pointer && (downAt < drawnAt || (near && now - lastTap.at < SETTLE_MS)))) {
    e.preventDefault(); e.stopImmediatePropagation(); return;
  }
  if (pointer) lastTap = { at: now, x: e.clientX, y: e.clientY, card, to: card && G.current === -1 ? G.receiver : null };
}, true);

// The same card tapped again at once: once the first is recorded, it is recorded again only
// if the page still asks for a card (the next player's deal); a decision that appeared under
// the finger is not answered by it.  The page then says the card was entered twice, for whom,
// with a one-tap undo of the second.
async function repeatCard(card, firstTo) {
  while (busy) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!G || G.current !== -1 || G.mode !== "referee" || !G.chance.some((c) => c.card === card)) return;
  const to = G.receiver;
  lastTap.to = to;  // a third tap at once names this one and the next
  await post("reveal", { card }, () => say(t("dealt_twice", { card: cardName(card), a: firstTo !== null ? seatName(firstTo) : "?", b: to !== null ? seatName(to) : "?" }), true,
    h("button", { id: "undo-twice", onclick: () => post("undo") }, "↶ " + t("undo_twice"))));
}

let typedAt = -1e9;  // the last key pressed in a field: a letter just after it is typing, not a shortcut
document.addEventListener("input", () => { typedAt = performance.now(); }, true);
function lettersOn() { return localStorage.getItem("flip7ref-letters") !== "off"; }
function typing() { const a = document.activeElement; return !!a && (a.matches("input:not([type=radio]):not([type=checkbox]), textarea, select") || a.isContentEditable); }

// ---------------------------------------------------------------- start page

// The start page in another language: the texts from the server (option summaries, reading
// names) are fetched again in it; what was typed or chosen stays, also while it loads.
async function switchStartLanguage(lang, keep) {
  LANG = lang;
  localStorage.setItem("flip7ref-lang", LANG);
  try { META = await api(withToken("/api/meta?lang=" + encodeURIComponent(LANG))); } catch (err) { say(err.message); }
  if (LANG === lang) startPage(keep());  // not when another switch came since
}

async function startPage(kept) {
  kept = kept || {};
  document.documentElement.lang = LANG;
  document.getElementById("title").textContent = t("title");
  const app = document.getElementById("app");
  app.replaceChildren();
  const keep = () => ({ edition: edSel.value, names: names.value, mode: form.querySelector("input[name=mode]:checked").value, seed: seed.value,
    dealer: dealerSel.value, options: Object.fromEntries([...optBox.querySelectorAll("[data-option]")].map((el) => [el.dataset.option, el.value])) });
  const langSel = h("select", { id: "lang", onchange: (e) => switchStartLanguage(e.target.value, keep) },
    META.langs.map((l) => h("option", { value: l, selected: l === LANG }, META.texts[l] && META.texts[l].lang_name || l)));
  const wanted = kept.edition || params.get("edition") || META.default_edition;  // the editions: META.editions
  const edSel = h("select", { id: "edition", name: "edition" },
    META.editions.map((e) => h("option", { value: e.id, selected: e.id === wanted }, e.title)));
  const optBox = h("div", { id: "options" });
  const names = h("textarea", { id: "names" }, kept.names !== undefined ? kept.names : "Ann\nBob\nCy");
  const dealerSel = h("select", { id: "dealer" });
  const refreshDealers = () => {
    const list = names.value.split("\n").map((s) => s.trim()).filter(Boolean);
    dealerSel.replaceChildren(...list.map((n, i) => h("option", { value: i }, n)));
  };
  names.addEventListener("input", refreshDealers);
  refreshDealers();
  if (kept.dealer) dealerSel.value = kept.dealer;
  const renderOptions = () => {
    const ed = META.editions.find((e) => e.id === edSel.value);
    optBox.replaceChildren(...ed.options.map((o) => {
      const chosen = (kept.options && kept.edition === edSel.value && kept.options[o.name]) || params.get("o." + o.name);
      if (o.integer) {  // a whole number, or one of the named readings
        const box = h("input", { "data-option": o.name, id: "opt-" + o.name, title: o.summary, list: "list-" + o.name,
          value: chosen || String(o.default), autocomplete: "off" });
        const names = h("datalist", { id: "list-" + o.name }, o.readings.map((r) => h("option", { value: r.name }, r.summary)));
        return h("div", { class: "opt" }, h("label", { for: "opt-" + o.name }, o.name), h("span", { class: "muted" },
          " " + o.summary + " (" + t("default") + " " + o.default + "; " + o.integer[0] + "–" + o.integer[1] + ")"), h("br"), box, names);
      }
      const sel = h("select", { "data-option": o.name, id: "opt-" + o.name, title: o.summary },
        o.readings.map((r) => h("option", { value: r.name, selected: chosen ? chosen === r.name : String(o.default) === r.name, title: r.summary },
          (r.label || r.name) + (String(o.default) === r.name ? " (" + t("default") + ")" : ""))));
      return h("div", { class: "opt" }, h("label", { for: "opt-" + o.name }, o.name), h("span", { class: "muted" }, " " + o.summary), h("br"), sel);
    }));
  };
  edSel.addEventListener("change", renderOptions);
  renderOptions();
  const modes = ["referee", "dealer", "manual"].map((m) =>
    h("label", { class: "radio" }, h("input", { type: "radio", name: "mode", value: m, checked: m === (kept.mode || "referee") }), " ", t(m === "dealer" ? "dealer_mode" : m)));
  const seed = h("input", { id: "seed", type: "text", inputmode: "numeric", value: kept.seed || null });
  const form = h("form", { class: "start", onsubmit: async (e) => {
    e.preventDefault();
    const options = {};
    for (const el of optBox.querySelectorAll("[data-option]")) if (el.value.trim()) options[el.dataset.option] = el.value.trim();
    const body = {
      edition: edSel.value, names: names.value.split("\n").map((s) => s.trim()).filter(Boolean),
      dealer: Number(dealerSel.value || 0), mode: form.querySelector("input[name=mode]:checked").value, options, lang: LANG,
    };
    if (body.mode === "dealer" && seed.value.trim()) body.seed = seed.value.trim();
    try {
      const res = await api("/api/games", body);
      go(gameHref(res.id, TOKEN ? res.token : ""));
    } catch (err) { say(err.message); }
  } },
    h("h2", {}, t("new_game")),
    h("label", { for: "lang" }, t("language")), langSel,
    h("label", { for: "edition" }, t("edition")), edSel,
    h("label", { for: "names" }, t("names")), names,
    h("label", { for: "dealer" }, t("dealer")), dealerSel,
    h("fieldset", { class: "modes" }, h("legend", {}, t("mode")), ...modes),
    h("label", { for: "seed" }, t("seed")), seed,
    h("details", {}, h("summary", {}, t("options")), optBox),
    h("p", {}, h("button", { type: "submit", class: "primary", id: "start" }, t("start"))));
  const saved = META.saved.length
    ? h("ul", { class: "saved" }, META.saved.map((g) => g.damaged
        ? h("li", { class: "damaged muted" }, t("damaged") + ": " + g.file + " (" + g.damaged + ")")
        : h("li", {},
          h("button", { class: "open-saved", "data-id": g.id, onclick: () => openSaved(g.id) }, t("open")),
          " " + (g.names || []).join(", ") + " — " + g.edition + ", " + g.mode + " — " + (g.created || g.id))))
    : h("p", { class: "muted" }, t("none_saved"));
  app.append(form, h("h2", {}, t("saved")), saved);
  if (!STANDALONE) app.append(importBox());  // the static build has its own bar (standalone.js)
}

// A saved game's files brought in: its transcript (.json), with or without its .table.json
// (a score pad has only that one), saved under a new id; the same files the static build exports.
function importBox() {
  const input = h("input", { type: "file", id: "import", accept: ".json,application/json", multiple: true, onchange: async () => {
    const body = {};
    for (const file of input.files) {
      let data;
      try { data = JSON.parse(await file.text()); } catch (err) { say(t("not_json", { file: file.name })); input.value = ""; return; }
      if (data && typeof data === "object" && Array.isArray(data.steps)) body.transcript = data; else body.table = data;
    }
    input.value = "";
    try {
      const res = await api("/api/games/import", body);
      go(gameHref(res.id, TOKEN ? res.token : ""));
    } catch (err) { say(err.message); }
  } });
  return h("p", {}, h("label", { class: "button import", for: "import" }, t("import_game"), input));
}

function exportLinks() {
  // the files of this game, as saved: to keep, or to import on another server or in the static page
  if (STANDALONE) return null;  // standalone.js offers them in its bar
  const file = (name, key, id) => h("a", { class: "button", id, download: true, href: withToken("/api/games/" + G.id + "/" + name) }, t(key));
  return [G.mode !== "manual" ? file("transcript.json", "export_transcript", "export") : null, file("table.json", "export_table", "export-table")];
}

async function openSaved(id) {
  try {
    const res = await api("/api/games/open", { id });
    go(gameHref(res.id, TOKEN ? res.token : ""));
  } catch (err) { say(err.message); }
}

// ---------------------------------------------------------------- the game

function refusal(err) {
  if (err.offline) return err.message;
  return t("refused") + ": " + err.message + (err.data && err.data.rules && err.data.rules.length ? " [" + err.data.rules.join(", ") + "]" : "");
}

async function post(op, body, after) {
  if (busy) return null;
  busy = true;
  try {
    const res = await api("/api/games/" + G.id + "/" + op, Object.assign({ version: G.version }, body || {}));
    say("");
    render(res.state);
    if (after) after(res);
    return res;
  } catch (err) {
    if (err.status === 409 && err.data && err.data.state) { say(t("state_changed")); render(err.data.state); }
    else if (op === "reveal" && err.status === 400 && G.mode === "referee" && body && body.card && G.card_names[body.card]) {
      // the cards entered say this card cannot be left: the players may know better
      say(refusal(err), false, h("button", { id: "deck-disagrees", class: "warn", onclick: () => post("note", { card: body.card }, () => say(t("noted", { card: cardName(body.card) }), true)) },
        t("deck_disagrees") + ": " + cardName(body.card)));
    } else say(refusal(err));
    return null;
  } finally { busy = false; }
}

function swapButtons() {
  // pick one card, then the card to swap it with (not every pair as a button)
  const pairs = G.actions.filter((a) => a.verb === "swap").map((a) => { const w = a.action.split(" "); return [w[1] + " " + w[2], w[3] + " " + w[4], a]; });
  const cardOf = (key) => { const [s, i] = key.split(" ").map(Number); return G.seats[s].line[i]; };
  const pick = (key, onclick, cls) => { const [s] = key.split(" ").map(Number);
    return h("button", { class: "act pick" + (cls || ""), "data-pick": key, onclick }, seatName(s) + ": " + cardName(cardOf(key))); };
  if (swapFirst === null) {
    const keys = [...new Set(pairs.flatMap((p) => [p[0], p[1]]))];
    return [h("div", { class: "hint", id: "swap-hint" }, t("swap_first")), ...keys.map((k) => pick(k, () => { swapFirst = k; render(G, true); }))];
  }
  const partners = pairs.filter((p) => p[0] === swapFirst || p[1] === swapFirst);
  return [h("div", { class: "hint", id: "swap-hint" }, t("swap_second", { card: seatName(Number(swapFirst.split(" ")[0])) + ": " + cardName(cardOf(swapFirst)) })),
    ...partners.map((p) => pick(p[0] === swapFirst ? p[1] : p[0], () => { swapFirst = null; post("act", { action: p[2].action }); })),
    h("button", { id: "swap-back", onclick: () => { swapFirst = null; render(G, true); } }, t("back"))];
}

function actionButton(a) {
  const v = a.verb;
  let label;
  if (v === "hit") label = t("hit");
  else if (v === "stay") label = t("stay");
  else if (v === "target") {
    const k = G.pending.kind;
    if (k === "give") label = t("give") + " " + seatName(a.seat);
    else if (k === "keep_or_give") label = a.seat === G.who ? t("keep") : t("give") + " " + seatName(a.seat);
    else if (k === "assign") label = cardName(G.pending.card) + " → " + seatName(a.seat);
    else if (k === "flip7_bonus") label = a.seat === G.who ? t("flip7_plus") : t("flip7_minus") + " " + seatName(a.seat);
    else label = cardName(G.pending.card) + " → " + seatName(a.seat);
  } else if (a.label !== undefined) label = a.label;  // a plug-in primitive's verb: the generic view
  else label = t(v) + ": " + seatName(a.seat) + " " + cardName(a.card);
  return h("button", { class: "act" + (v === "hit" ? " primary" : ""), "data-action": a.action, onclick: () => post("act", { action: a.action }) }, label);
}

function forcedLine() {
  const f = G.forced;
  if (!f) return null;
  const at = Math.min(f.drawn + (G.current === -1 ? 1 : 0), f.count);
  return h("div", { class: "forced", id: "forced" }, cardName(f.card) + " → " + seatName(f.target) + ": " + t("card_of", { i: at, n: f.count }),
    f.set_aside.length ? h("span", {}, " · " + t("set_aside") + ": ", f.set_aside.map(chip)) : null);
}

function roundSummary() {
  const r = G.pad.rounds.find((x) => x.round === G.round_end);
  if (!r) return null;
  const rows = G.names.map((n, i) => {
    const b = r.breakdown && r.breakdown[i];
    const marks = [];
    if (b && b.busted) marks.push(h("b", { class: "bust" }, t("busted")));
    if (r.flip7 === i) marks.push(h("b", { class: "win" }, t("flip7")));
    return h("tr", { "data-seat": i }, h("th", { scope: "row" }, n),
      h("td", { class: "line" }, b ? b.cards.map(chip) : "—"), h("td", {}, String(r.scores[i])), h("td", {}, marks),
      h("td", {}, String(r.totals[i])));
  });
  return h("section", { class: "summary", id: "summary", "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, t("round_over", { n: r.round })),
    h("table", { class: "pad" }, h("thead", {}, h("tr", {}, h("th", {}, t("players")), h("th", {}, t("line_value")), h("th", {}, t("score")), h("th", {}, ""), h("th", {}, t("total")))),
      h("tbody", {}, rows)),
    G.finished ? null : h("button", { id: "next-round", onclick: () => {
      seenRoundEnd = G.version; sessionStorage.setItem("flip7ref-round-seen", String(seenRoundEnd)); render(G, true);
      const first = document.querySelector("#prompt button"); if (first) first.focus();
    } }, t("next_round")));
}

function promptBox() {
  if (G.finished) return null;  // the winner is shown at the top of the page (winnerBox)
  const box = h("section", { class: "prompt", id: "prompt", "aria-label": t("your_turn") });
  const forced = forcedLine();
  if (G.current === -1) {
    box.append(h("div", { class: "who", id: "who" }, t("card_for", { name: G.receiver !== null ? seatName(G.receiver) : "?" })));
    if (forced) box.append(forced);
    if (G.mode === "dealer") {
      box.append(h("button", { class: "primary", id: "deal", onclick: () => post("deal") }, t("deal")));
    } else {
      // a fixed grid: every card of the edition in the same place; one that ran out is dimmed
      box.append(h("div", { class: "cards", id: "cards" }, G.chance.map((c) =>
        h("button", { class: "card " + (G.categories[c.card] || "") + (c.left ? "" : " out"), "data-card": c.card,
          // the name read out starts with the text shown ("9 ×3"): a voice command that says what it sees finds it
          "aria-label": cardName(c.card) + " ×" + c.left + ", " + (c.left ? t("left", { n: c.left }) : t("none_left")),
          onclick: () => post("reveal", { card: c.card }) },
          cardName(c.card), h("small", { "aria-hidden": "true" }, "×" + c.left)))));
    }
  } else {
    box.append(h("div", { class: "who", id: "who" }, t("decides", { name: seatName(G.who) }) +
      (G.pending.card ? " — " + cardName(G.pending.card) : "") + (G.pending.text ? " — " + G.pending.text : "")));
    if (forced) box.append(forced);
    const swaps = G.actions.some((a) => a.verb === "swap");
    box.append(h("div", { class: "actions", id: "actions" }, swaps ? swapButtons() : G.actions.map(actionButton)));
  }
  return box;
}

// the card typed in (a keyboard's way; the grid is the thumb's): in the dock's bottom bar, beside undo and redo
function typedForm() {
  if (G.finished || G.current !== -1 || G.mode === "dealer") return null;
  const input = h("input", { id: "card-input", list: "card-list", "aria-label": t("type_card"), placeholder: t("type_card"), autocomplete: "off" });
  const list = h("datalist", { id: "card-list" }, Object.keys(G.card_names).map((id) => h("option", { value: id }, cardName(id))));
  return h("form", { class: "typed", onsubmit: (e) => { e.preventDefault(); if (input.value.trim()) post("reveal", { card: input.value.trim() }); } },
    input, list, h("button", { type: "submit", id: "card-enter" }, t("enter")));
}

// the rules that decide the step now: in the page, not in the dock (the dock keeps to the turn's controls)
function rulesHere() {
  if (!G.rules_here || !G.rules_here.length) return null;
  return h("details", { class: "muted rules-here", id: "rules-here" }, h("summary", {}, t("rules_here")),
    h("ul", {}, G.rules_here.map((r) => h("li", {}, h("b", {}, r.id), " " + r.text))));
}

// the game's end: the winner first, at the top of the page (above the last round's summary)
function winnerBox() {
  if (!G.finished) return null;
  const w = G.mode === "manual" ? "" : " — " + t(G.winners.length > 1 ? "winners" : "winner") + ": " + G.winners.map(seatName).join(", ");
  return h("section", { class: "prompt", id: "end" }, h("div", { class: "who win", id: "winner" }, t("game_over") + w));
}

// What the page itself says about its words and its trust: the invented card names of a
// language without a published edition (a text in that language only), and, in dealer
// mode, that any step can be undone and how the table keeps an eye on it.
function pageNotes() {
  const texts = META.texts[G.lang] || {};
  const names = texts["card_names_note_" + G.edition];
  return [names ? h("p", { class: "muted", id: "names-note" }, names) : null,
    G.mode === "dealer" ? h("p", { class: "muted", id: "dealer-trust" }, t("dealer_trust")) : null];
}

// Dealer mode: undoing a dealt card (a bust among them) lets a player take back what everyone saw;
// the table confirms it first.
function undo() {
  const last = G.steps && G.steps[G.steps.length - 1];
  if (G.mode === "dealer" && last && last.card && !confirm(t("undo_deal_confirm", { card: cardName(last.card) }))) return;
  post("undo");
}

function seatsBox() {
  return h("section", { class: "seats", id: "seats", "aria-label": t("players") }, G.seats.map((s, i) =>
    h("div", { class: "seat" + (G.who === i || G.receiver === i ? " turn" : ""), "data-seat": i },
      h("span", { class: "status " + s.status }, t(s.status)),
      h("div", { class: "name" }, s.name + (s.dealer ? " ◆" : "")),
      h("div", { class: "line" }, s.line.map(chip), s.kept.map(chip)),
      G.second_chance_used && G.second_chance_used[i].length
        ? h("div", { class: "used", "data-used": i }, G.second_chance_used[i].map((c) => h("s", {}, cardName(c))), " " + t("sc_used")) : null,
      h("div", { class: "muted" }, t("line_value") + " " + s.value + " · " + t("total") + " " + s.total))));
}

function breakdown(b) {
  if (!b) return null;
  let s;
  if (b.busted) {
    s = t("busted");
    if (b.score - (b.penalty || 0)) s += ", " + t("modifiers") + " " + b.modifiers;  // V-081: the negatives count
  } else {
    s = t("numbers") + " " + b.numbers;
    if (b.multiplied !== b.numbers) s += " → " + b.multiplied;
    if (b.modifiers) s += ", " + t("modifiers") + " " + (b.modifiers > 0 ? "+" : "") + b.modifiers;
    if (b.bonus) s += ", " + t("bonus") + " +" + b.bonus;
  }
  if (b.penalty) s += ", " + t("penalty") + " " + b.penalty;
  return h("span", { class: "bd" }, s);
}

function padBox() {
  const pad = G.pad;
  const head = h("tr", {}, h("th", {}, t("round")), G.names.map((n) => h("th", {}, n)));
  const rows = pad.rounds.map((r) => h("tr", { class: "round-row" }, h("td", {}, r.round),
    r.scores.map((s, i) => h("td", {}, String(s), breakdown(r.breakdown && r.breakdown[i])))));
  const totals = h("tr", { class: "totals", id: "totals" }, h("td", {}, t("total")),
    pad.totals.map((s, i) => h("td", { class: pad.winners.includes(i) ? "win" : null }, String(s))));
  const box = h("section", { id: "pad", "aria-labelledby": "pad-title" }, h("h2", { id: "pad-title" }, t("score_pad")),
    h("div", { class: "padwrap" }, h("table", { class: "pad" }, h("thead", {}, head), h("tbody", {}, rows, totals))));
  if (pad.tied && pad.tied.length) box.append(h("p", { id: "tie" }, t("tie") + " (" + pad.tied.map(seatName).join(", ") + ")"));
  if (pad.winners.length) box.append(h("p", { class: "win", id: "pad-winner" }, t(pad.winners.length > 1 ? "winners" : "winner") + ": " + pad.winners.map(seatName).join(", ")));
  if (G.mode === "manual" && !G.finished) {
    const inputs = G.names.map((n, i) => h("input", { type: "number", class: "score-in", id: "score-" + i, "data-seat": i, inputmode: "numeric", step: 1 }));
    box.append(h("form", { id: "manual", novalidate: true, onsubmit: (e) => {
      e.preventDefault();
      const empty = inputs.findIndex((x) => x.value.trim() === "");
      if (empty >= 0) { say(t("empty_score", { name: G.names[empty] })); inputs[empty].focus(); return; }  // not a 0 nobody typed
      const scores = inputs.map((x) => Number(x.value));
      const bad = scores.findIndex((x) => !Number.isInteger(x));
      if (bad >= 0) { say(t("whole_score", { name: G.names[bad] })); inputs[bad].focus(); return; }
      post("scores", { scores }, () => { const f = document.getElementById("score-0"); if (f) f.focus(); });
    } }, h("h2", {}, t("scores_round")), G.names.map((n, i) => h("label", { class: "score", for: "score-" + i }, n, inputs[i])),
      h("button", { type: "submit", class: "primary", id: "add-round" }, t("add_round"))));
  }
  box.append(h("p", {}, h("a", { class: "button", href: withToken("/api/games/" + G.id + "/scores.csv"), id: "csv" }, t("csv")), exportLinks()));
  return box;
}

async function showRuling(i) {
  const panel = document.getElementById("ruling-panel");
  panel.replaceChildren();
  try {
    const r = await api(withToken("/api/games/" + G.id + "/ruling/" + i));
    const box = h("div", { class: "ruling", id: "ruling" });
    for (const e of r.events) box.append(h("p", {}, e.text, e.rules.length ? " — " + e.rules.map((x) => x.id).join(", ") : ""));
    box.append(h("ul", {}, r.rules.map((x) => h("li", {}, h("span", { class: "rid" }, x.id), " " + x.text))));
    for (const o of r.options) {
      const opt = h("div", { class: "option" }, h("b", {}, o.name + (o.dispute ? " (" + o.dispute + ")" : "")), " " + o.summary,
        h("ul", {}, o.readings.map((x) => h("li", { class: "reading" + (x.in_force ? " in_force" : "") },
          (x.label || x.name) + (x.in_force ? " — " + t("in_force") : "") + (x.default ? " (" + t("default") + ")" : "") + ": " + x.summary))));
      if (o.played) {
        opt.append(h("div", {}, h("i", {}, t("under")), h("ul", {}, o.played.map((p) => h("li", { class: "played" }, h("b", {}, (p.label || p.reading) + ": "),
          p.text ? p.text : p.diverges ? t("diverges") + " " + p.diverges.step + ": " + p.diverges.why
            : (p.events.join("; ") || "—") + " · " + t("next") + ": " + p.next)))));
      }
      box.append(opt);
    }
    box.prepend(h("h3", {}, t("rules") + " — #" + (i + 1)), ...(r.summary || []).map((s) => h("p", { class: "summary" }, s)));
    box.append(h("button", { id: "ruling-close", onclick: () => box.remove() }, t("close")));
    panel.append(box);
    box.scrollIntoView({ block: "nearest" });
  } catch (err) { say(err.message); }
}

function fixCard(i, quiet) {
  const open = document.getElementById("fix-form");  // one correction form at a time
  if (open) open.remove();
  const input = h("input", { id: "fix-input", list: "card-list-all", "aria-label": t("correct") });
  const list = h("datalist", { id: "card-list-all" }, Object.keys(G.card_names).map((id) => h("option", { value: id }, cardName(id))));
  const plan = h("div", { id: "fix-plan", "aria-live": "polite" });
  const form = h("form", { id: "fix-form", onsubmit: async (e) => {
    e.preventDefault();
    // first say what the correction will change; it is made only when confirmed
    const card = input.value.trim();
    if (!card || busy) return;
    try {
      const res = await api("/api/games/" + G.id + "/fix", { version: G.version, step: i, card, preview: true });
      const p = res.fix;
      plan.replaceChildren(h("p", {}, t("fix_will", { step: i + 1, old: cardName(p.old), new: cardName(p.new) })),
        h("p", {}, t("fix_keeps", { n: p.kept.length })),
        p.dropped.length ? h("div", {}, h("p", {}, t("fix_drops")), h("ul", { id: "fix-dropped" }, p.dropped.map((d) =>
          h("li", { "data-step": d.index }, "#" + (d.index + 1) + " " + d.text.join(" · "))))) : null,
        h("button", { type: "button", class: "primary", id: "fix-confirm", onclick: () => post("fix", { step: i, card }) }, t("fix_confirm")),
        h("button", { type: "button", id: "fix-cancel", onclick: () => form.remove() }, t("cancel")));
      document.getElementById("fix-confirm").focus();
    } catch (err) { say(refusal(err)); }
  } }, input, list, h("button", { type: "submit", id: "fix-check" }, t("enter")), plan);
  const li = document.querySelector("li[data-step='" + i + "']");
  li.append(form);
  if (!quiet) input.focus();
}

function logBox() {
  const undone = new Map((G.undone || []).map((u) => [u.step, u]));
  const items = G.steps.map((s) => {
    const li = h("li", { "data-step": s.index });
    const move = s.move === "hit" ? t("hit") : s.move === "stay" ? t("stay") : s.move;
    const who = s.seat !== null ? seatName(s.seat) + ": " + move : "";
    li.append(h("button", { class: "step", onclick: () => showRuling(s.index) },
      (s.text.length ? s.text.join(" · ") : who || s.move)));
    if (s.card && G.mode === "referee") li.append(h("button", { class: "fix", title: t("correct"), "aria-label": t("correct") + " #" + (s.index + 1), onclick: () => fixCard(s.index) }, "✎"));
    return li;
  });
  const box = h("section", { id: "log", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, t("log")), h("div", { id: "ruling-panel" }), h("ol", { class: "log" }, items.reverse()));
  box.querySelector("ol").setAttribute("reversed", "");
  return box;
}

function undoneBox() {
  // dealer mode: an undo shows the next card to whoever looks, so everyone sees every undo
  if (G.mode !== "dealer" || !G.undone || !G.undone.length) return null;
  return h("section", { class: "undone", id: "undone", "aria-labelledby": "undone-title" }, h("h2", { id: "undone-title" }, t("undone_title", { n: G.undone.length })),
    h("ul", {}, G.undone.map((u) => h("li", {}, "#" + (u.step + 1) + " " + (u.seat !== null && u.seat !== undefined ? seatName(u.seat) + ": " : "") + (u.text.join(" · ") || u.move)))));
}

function notesBox() {
  if (!G.notes || !G.notes.length) return null;
  return h("section", { class: "undone", id: "notes", "aria-labelledby": "notes-title" }, h("h2", { id: "notes-title" }, t("deck_disagrees")),
    h("ul", {}, G.notes.map((n) => h("li", {}, "#" + (n.step + 1) + " " + (n.seat !== null ? seatName(n.seat) + ": " : "") + cardName(n.card)))));
}

function settingsBox() {
  const langSel = h("select", { id: "game-lang", onchange: (e) => { localStorage.setItem("flip7ref-lang", e.target.value); post("lang", { lang: e.target.value }); } },
    META.langs.map((l) => h("option", { value: l, selected: l === G.lang }, (META.texts[l] && META.texts[l].lang_name) || l)));
  const letters = h("input", { type: "checkbox", id: "letters", checked: lettersOn(), onchange: (e) => localStorage.setItem("flip7ref-letters", e.target.checked ? "on" : "off") });
  const box = h("details", { class: "settings", id: "settings" }, h("summary", {}, t("settings")),
    h("label", { for: "game-lang" }, t("language")), langSel,
    h("label", { class: "radio", for: "letters" }, letters, " " + t("letters")));
  if (G.mode !== "manual") {  // a rule of the edition by its id (F7-004), in the game's language
    const rid = h("input", { id: "rule-id", autocomplete: "off", placeholder: "F7-004" });
    const found = h("p", { id: "rule-found", "aria-live": "polite" });
    box.append(h("label", { for: "rule-id" }, t("rule_lookup")), h("form", { class: "typed", id: "rule-lookup", onsubmit: async (e) => {
      e.preventDefault();
      if (!rid.value.trim()) return;
      try {
        const r = await api(withToken("/api/games/" + G.id + "/rule/" + encodeURIComponent(rid.value.trim())));
        found.replaceChildren(h("span", { class: "rid" }, r.id), " " + r.text);
      } catch (err) { found.replaceChildren(err.message); }
    } }, rid, h("button", { type: "submit", id: "rule-go" }, t("look_up"))), found);
  }
  if (G.mode !== "manual" && !G.finished) {
    box.append(h("p", {}, h("button", { id: "to-manual", onclick: () => { if (confirm(t("to_manual_confirm"))) post("to_manual"); } }, t("to_manual"))));
  }
  if (META.token_required) {
    box.append(h("figure", { class: "qr" }, h("img", { id: "qr", src: withToken("/api/games/" + G.id + "/qr.svg"), alt: t("qr"), width: 198, height: 198 }),
      h("figcaption", {}, t("qr"))));
  }
  return box;
}

function focusKey(el) {
  if (!el || el === document.body || !document.getElementById("app").contains(el)) return null;
  for (const a of ["data-action", "data-card", "data-pick", "data-step"]) if (el.hasAttribute(a)) return "[" + a + "='" + el.getAttribute(a) + "']";
  return el.id ? "#" + CSS.escape(el.id) : "#prompt button";
}

let lastShown = null;  // the round summary or game end last scrolled to ("id:version")
function render(view, same) {
  if (!same && G && view.id === G.id && view.version !== G.version) swapFirst = null;
  const focused = focusKey(document.activeElement);
  const fixing = document.getElementById("fix-form");  // a correction being typed stays open
  const fixStep = fixing ? Number(fixing.closest("li").dataset.step) : null;
  const typed = {};  // what is being typed keeps its text across a redraw (another phone's step)
  for (const el of document.querySelectorAll("#app input:not([type=radio]):not([type=checkbox])")) if (el.id && el.value) typed[el.id] = el.value;
  G = view;
  LANG = view.lang;
  document.documentElement.lang = LANG;
  document.getElementById("home").textContent = "⌂ " + t("home");
  document.getElementById("title").textContent = view.edition_title + (view.round ? " — " + t("round") + " " + view.round : "");
  const app = document.getElementById("app");
  const tools = h("div", { class: "tools" },
    h("button", { id: "undo", onclick: undo, disabled: !view.undo, title: "Ctrl+Z" }, "↶ " + t("undo")),
    h("button", { id: "redo", onclick: () => post("redo"), disabled: !view.redo, title: "Ctrl+Y" }, "↷ " + t("redo")));
  const parts = [winnerBox()];
  let summary = null;
  if (view.mode !== "manual") {
    // the round summary (and at the game's end the winner above it) at the top of the page, until
    // someone taps on: Next round, or the next deal's first card; the dock keeps to the turn
    summary = view.round_end && seenRoundEnd < view.version ? roundSummary() : null;
    parts.push(summary, seatsBox(),
      h("p", { class: "counts", id: "counts" }, t("draw_pile") + ": " + view.draw_count + " · " + t("discard_pile") + ": " + view.discard_count),
      ...pageNotes(), rulesHere(), undoneBox(), notesBox(), padBox(), logBox(), settingsBox());
    // the controls of the turn at the bottom of the screen, under the thumb: the prompt, then one
    // bar with the typed card, undo and redo (the dock takes at most about 40% of a phone's screen)
    parts.push(h("div", { class: "dock", id: "dock" }, promptBox(), h("div", { class: "bar" }, typedForm(), tools)));
  } else {
    parts.push(tools, padBox(), settingsBox());
  }
  app.replaceChildren(...parts.filter(Boolean));
  // a round's summary or the game's end, when it first shows: scrolled to (the page may be scrolled down to the log)
  const top = document.getElementById("end") || summary;
  const shown = top ? top.id + ":" + view.version : null;
  if (shown && shown !== lastShown) top.scrollIntoView({ block: "start" });
  lastShown = shown;
  if (fixStep !== null && view.mode === "referee" && document.querySelector("li[data-step='" + fixStep + "'] button.fix")) fixCard(fixStep, true);
  for (const [id, v] of Object.entries(typed)) { const el = document.getElementById(id); if (el && !el.value) el.value = v; }
  if (focused) {
    const el = document.querySelector("#app " + focused) || document.querySelector("#dock button:not([disabled])");
    if (el) el.focus({ preventScroll: true });
  }
  drawnAt = performance.now();
  padForDock();
  wakeLock();
}

// The dock (the turn's controls, the round summary) stays over the bottom of the screen: the
// page's scroll padding is its height, so that a link scrolled to or a control focused by
// the keyboard is shown above the dock, never under it (the score pad's CSV link on a phone).
const dockSize = typeof ResizeObserver !== "undefined" ? new ResizeObserver(() => padForDock()) : null;
function padForDock() {
  const dock = document.getElementById("dock");
  document.documentElement.style.scrollPaddingBottom = dock ? Math.ceil(dock.getBoundingClientRect().height) + 8 + "px" : "";
  if (dockSize && dock !== watchedDock) { dockSize.disconnect(); watchedDock = dock; if (dock) dockSize.observe(dock); }
}
let watchedDock = null;

// keep the screen awake during a game (where the browser has the Wake Lock API), and let it
// sleep again when the game is over or the page leaves the game
let lock = null;
let locking = false;
async function wakeLock() {
  if (!G || G.finished) {
    const held = lock;
    lock = null;
    if (held) { try { await held.release(); } catch (e) { /* already released */ } }
    return;
  }
  if (lock || locking || !("wakeLock" in navigator) || document.hidden) return;
  locking = true;
  try {
    const got = await navigator.wakeLock.request("screen");
    got.addEventListener("release", () => { if (lock === got) lock = null; });
    if (!G || G.finished) got.release(); else lock = got;  // the game ended while asking
  } catch (e) { lock = null; } finally { locking = false; }
}
document.addEventListener("visibilitychange", () => { if (!document.hidden) wakeLock(); });

async function gamePage(id) {
  try {
    render(await api(withToken("/api/games/" + encodeURIComponent(id))));
  } catch (err) { say(err.message); document.getElementById("app").replaceChildren(h("a", { href: homeHref() }, t("home"))); }
}

document.addEventListener("keydown", (e) => {
  if (!G) return;
  const field = typing();
  if ((e.ctrlKey || e.metaKey) && !field && e.key === "z") { e.preventDefault(); undo(); return; }
  if ((e.ctrlKey || e.metaKey) && !field && e.key === "y") { e.preventDefault(); post("redo"); return; }
  // single letters: only when no field has focus (or with Alt), and only when turned on
  if (e.ctrlKey || e.metaKey || !lettersOn() || (field && !e.altKey) || (!e.altKey && performance.now() - typedAt < 1500)) return;
  const key = e.key.toLowerCase();
  const has = (a) => G.actions && G.actions.some((x) => x.action === a);
  if (key === "h" && has("hit")) { e.preventDefault(); post("act", { action: "hit" }); }
  else if (key === "s" && has("stay")) { e.preventDefault(); post("act", { action: "stay" }); }
  else if (e.key === "/" && !field && document.getElementById("card-input")) { e.preventDefault(); document.getElementById("card-input").focus(); }
});

// other phones at the table: pick up their steps
async function poll() {
  if (!G || busy || document.hidden) return;
  try {
    const v = await api(withToken("/api/games/" + G.id));
    if (v.version <= G.version || busy) return;  // versions only grow: never go back to an older answer
    if (typing() && document.activeElement.value) { waiting = v; return; }  // not under the fingers of someone typing
    render(v);
  } catch (e) { /* the next poll tries again */ }
}
setInterval(poll, 4000);
document.addEventListener("focusout", () => setTimeout(() => { if (waiting && !typing()) { const v = waiting; waiting = false; if (v.version > G.version) render(v); } }, 0));

async function route(loaded) {
  G = null;
  wakeLock();  // no game on this page (yet): the screen may sleep
  const gid = pageGameId();
  // the static build moves between pages without a page load: the list of saved games is read again
  if (STANDALONE && !gid && loaded !== true) { try { META = await api("/api/meta?lang=" + encodeURIComponent(LANG)); } catch (err) { say(err.message); } }
  const home = document.getElementById("home");
  home.setAttribute("href", gid ? (STANDALONE ? "./" : "/") : homeHref());
  home.textContent = "⌂ " + t("home");
  if (gid) gamePage(gid);
  else if (META.token_required && !META.authorized) say(t("token_needed"));
  else startPage();
  document.dispatchEvent(new CustomEvent("flip7ref:route", { detail: { game: gid } }));
}

(async function main() {
  document.documentElement.lang = LANG;
  try { META = await api(withToken("/api/meta?lang=" + encodeURIComponent(LANG))); } catch (err) { say(err.message); return; }
  if (STANDALONE) {
    window.addEventListener("popstate", route);
    document.getElementById("home").addEventListener("click", (e) => { e.preventDefault(); say(""); go("./"); });
  }
  route(true);
})();
