// The table referee page: plain JavaScript, no build step, no libraries.
// It renders what GET /api/games/{id} returns and posts one step at a time,
// always with the version it last saw (a stale step gets 409 and the new state).
"use strict";

const params = new URLSearchParams(location.search);
const TOKEN = params.get("token") || "";
let META = null;
let LANG = localStorage.getItem("flip7ref-lang") || "en";
let G = null;        // the game's view
let busy = false;

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

function say(text, info) {
  const m = document.getElementById("msg");
  m.className = info ? "info" : "";
  m.textContent = text || "";
}

async function api(path, body) {
  const opts = { headers: { "X-Table-Token": TOKEN } };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: res.status + " " + res.statusText }; }
  if (!res.ok) { const err = new Error(data.error || res.statusText); err.status = res.status; err.data = data; throw err; }
  return data;
}

function withToken(path) { return TOKEN ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN) : path; }

function cardName(id) { return (G && G.card_names[id]) || id; }
function chip(id) { return h("span", { class: "chip " + ((G && G.categories[id]) || "") }, cardName(id)); }
function seatName(s) { return G.names[s] !== undefined ? G.names[s] : "seat " + s; }

// ---------------------------------------------------------------- start page

async function startPage() {
  document.getElementById("title").textContent = t("title");
  const app = document.getElementById("app");
  app.replaceChildren();
  const langSel = h("select", { id: "lang", onchange: (e) => { LANG = e.target.value; localStorage.setItem("flip7ref-lang", LANG); startPage(); } },
    META.langs.map((l) => h("option", { value: l, selected: l === LANG }, l)));
  const wanted = params.get("edition") || "flip7";
  const edSel = h("select", { id: "edition", name: "edition" },
    META.editions.map((e) => h("option", { value: e.id, selected: e.id === wanted }, e.title)));
  const optBox = h("div", { id: "options" });
  const names = h("textarea", { id: "names", "aria-label": t("names") }, "Ann\nBob\nCy");
  const dealerSel = h("select", { id: "dealer" });
  const refreshDealers = () => {
    const list = names.value.split("\n").map((s) => s.trim()).filter(Boolean);
    dealerSel.replaceChildren(...list.map((n, i) => h("option", { value: i }, n)));
  };
  names.addEventListener("input", refreshDealers);
  refreshDealers();
  const renderOptions = () => {
    const ed = META.editions.find((e) => e.id === edSel.value);
    optBox.replaceChildren(...ed.options.map((o) => {
      const chosen = params.get("o." + o.name);
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
    h("label", {}, h("input", { type: "radio", name: "mode", value: m, checked: m === "referee" }), " ", t(m === "dealer" ? "dealer_mode" : m)));
  const seed = h("input", { id: "seed", type: "text", inputmode: "numeric" });
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
      location.href = "/game/" + res.id + (TOKEN ? "?token=" + encodeURIComponent(res.token) : "");
    } catch (err) { say(err.message); }
  } },
    h("h2", {}, t("new_game")),
    h("label", { for: "lang" }, t("language")), langSel,
    h("label", { for: "edition" }, t("edition")), edSel,
    h("label", { for: "names" }, t("names")), names,
    h("label", { for: "dealer" }, t("dealer")), dealerSel,
    h("label", {}, t("mode")), ...modes,
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
}

async function openSaved(id) {
  try {
    const res = await api("/api/games/open", { id });
    location.href = "/game/" + res.id + (TOKEN ? "?token=" + encodeURIComponent(res.token) : "");
  } catch (err) { say(err.message); }
}

// ---------------------------------------------------------------- the game

async function post(op, body) {
  if (busy) return;
  busy = true;
  try {
    const res = await api("/api/games/" + G.id + "/" + op, Object.assign({ version: G.version }, body || {}));
    say("");
    render(res.state);
  } catch (err) {
    if (err.status === 409 && err.data && err.data.state) { say(t("state_changed")); render(err.data.state); }
    else say(t("refused") + ": " + err.message + (err.data && err.data.rules && err.data.rules.length ? " [" + err.data.rules.join(", ") + "]" : ""));
  } finally { busy = false; }
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
  } else if (v === "swap") label = t("swap") + ": " + seatName(a.seat) + " " + cardName(a.card) + " ⇄ " + seatName(a.seat2) + " " + cardName(a.card2);
  else if (a.label !== undefined) label = a.label;  // a plug-in primitive's verb: the generic view
  else label = t(v) + ": " + seatName(a.seat) + " " + cardName(a.card);
  return h("button", { class: "act" + (v === "hit" ? " primary" : ""), "data-action": a.action, onclick: () => post("act", { action: a.action }) }, label);
}

function promptBox() {
  const box = h("section", { class: "prompt", id: "prompt" });
  if (G.finished) {
    const w = G.winners.map(seatName).join(", ");
    box.append(h("div", { class: "who win", id: "winner" }, t("game_over") + " — " + t(G.winners.length > 1 ? "winners" : "winner") + ": " + w));
    return box;
  }
  if (G.current === -1) {
    box.append(h("div", { class: "who" }, t("card_for", { name: G.receiver !== null ? seatName(G.receiver) : "?" })));
    if (G.mode === "dealer") {
      box.append(h("button", { class: "primary", id: "deal", onclick: () => post("deal") }, t("deal")));
    } else {
      box.append(h("div", { class: "cards", id: "cards" }, G.chance.map((c) =>
        h("button", { class: "card", "data-card": c.card, onclick: () => post("reveal", { card: c.card }), title: c.left + " left" },
          cardName(c.card), h("small", {}, "×" + c.left)))));
      const input = h("input", { id: "card-input", list: "card-list", "aria-label": t("type_card"), placeholder: t("type_card"), autocomplete: "off" });
      const list = h("datalist", { id: "card-list" }, Object.keys(G.card_names).map((id) => h("option", { value: id }, cardName(id))));
      box.append(h("form", { onsubmit: (e) => { e.preventDefault(); if (input.value.trim()) post("reveal", { card: input.value.trim() }); } },
        input, list, h("button", { type: "submit", id: "card-enter" }, t("enter"))));
    }
  } else {
    box.append(h("div", { class: "who", id: "who" }, t("decides", { name: seatName(G.who) }) +
      (G.pending.card ? " — " + cardName(G.pending.card) : "") + (G.pending.text ? " — " + G.pending.text : "")));
    box.append(h("div", { class: "actions", id: "actions" }, G.actions.map(actionButton)));
  }
  if (G.rules_here && G.rules_here.length) {
    box.append(h("details", { class: "muted" }, h("summary", {}, t("rules_here")),
      h("ul", {}, G.rules_here.map((r) => h("li", {}, h("b", {}, r.id), " " + r.text)))));
  }
  return box;
}

function seatsBox() {
  return h("section", { class: "seats", id: "seats" }, G.seats.map((s, i) =>
    h("div", { class: "seat" + (G.who === i || G.receiver === i ? " turn" : ""), "data-seat": i },
      h("span", { class: "status " + s.status }, t(s.status)),
      h("div", { class: "name" }, s.name + (s.dealer ? " ◆" : "")),
      h("div", { class: "line" }, s.line.map(chip), s.kept.map(chip)),
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
  const box = h("section", { id: "pad" }, h("h2", {}, t("score_pad")),
    h("div", { class: "padwrap" }, h("table", { class: "pad" }, h("thead", {}, head), h("tbody", {}, rows, totals))));
  if (pad.tied && pad.tied.length) box.append(h("p", { id: "tie" }, t("tie") + " (" + pad.tied.map(seatName).join(", ") + ")"));
  if (pad.winners.length) box.append(h("p", { class: "win", id: "pad-winner" }, t(pad.winners.length > 1 ? "winners" : "winner") + ": " + pad.winners.map(seatName).join(", ")));
  if (G.mode === "manual" && !G.finished) {
    const inputs = G.names.map((n, i) => h("input", { type: "number", class: "score-in", "data-seat": i, "aria-label": n, inputmode: "numeric", step: 1, style: "width:5rem" }));
    box.append(h("form", { id: "manual", onsubmit: (e) => {
      e.preventDefault();
      const scores = inputs.map((x) => Number(x.value || 0));
      if (scores.some((x) => !Number.isInteger(x))) { say(t("refused")); return; }
      post("scores", { scores });
    } }, h("h2", {}, t("scores_round")), G.names.map((n, i) => h("label", {}, n + " ", inputs[i], " ")),
      h("button", { type: "submit", class: "primary", id: "add-round" }, t("add_round"))));
  }
  box.append(h("p", {}, h("a", { href: withToken("/api/games/" + G.id + "/scores.csv"), id: "csv" }, t("csv"))));
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

function fixCard(i) {
  const open = document.getElementById("fix-form");  // one correction form at a time
  if (open) open.remove();
  const input = h("input", { id: "fix-input", list: "card-list-all", "aria-label": t("correct") });
  const list = h("datalist", { id: "card-list-all" }, Object.keys(G.card_names).map((id) => h("option", { value: id }, cardName(id))));
  const form = h("form", { id: "fix-form", onsubmit: (e) => { e.preventDefault(); post("fix", { step: i, card: input.value.trim() }); } },
    input, list, h("button", { type: "submit" }, t("enter")));
  const li = document.querySelector("li[data-step='" + i + "']");
  li.append(form);
  input.focus();
}

function logBox() {
  const items = G.steps.map((s) => {
    const li = h("li", { "data-step": s.index });
    const move = s.move === "hit" ? t("hit") : s.move === "stay" ? t("stay") : s.move;
    const who = s.seat !== null ? seatName(s.seat) + ": " + move : "";
    li.append(h("button", { class: "step", onclick: () => showRuling(s.index) },
      (s.text.length ? s.text.join(" · ") : who || s.move)));
    if (s.card && G.mode === "referee") li.append(h("button", { class: "fix", title: t("correct"), "aria-label": t("correct"), onclick: () => fixCard(s.index) }, "✎"));
    return li;
  });
  const box = h("section", { id: "log" }, h("h2", {}, t("log")), h("div", { id: "ruling-panel" }), h("ol", { class: "log" }, items.reverse()));
  box.querySelector("ol").setAttribute("reversed", "");
  return box;
}

function render(view) {
  G = view;
  LANG = view.lang;
  document.documentElement.lang = LANG;
  document.getElementById("home").textContent = "⌂ " + t("home");
  document.getElementById("title").textContent = view.edition_title + (view.round ? " — " + t("round") + " " + view.round : "");
  const app = document.getElementById("app");
  const tools = h("div", { class: "tools" },
    h("button", { id: "undo", onclick: () => post("undo"), disabled: !view.undo, title: "Ctrl+Z" }, "↶ " + t("undo")),
    h("button", { id: "redo", onclick: () => post("redo"), disabled: !view.redo, title: "Ctrl+Y" }, "↷ " + t("redo")));
  const parts = [];
  if (view.mode !== "manual") {
    parts.push(promptBox(), tools, seatsBox(),
      h("p", { class: "counts", id: "counts" }, t("draw_pile") + ": " + view.draw_count + " · " + t("discard_pile") + ": " + view.discard_count),
      padBox(), logBox());
  } else {
    if (view.finished) parts.push(h("section", { class: "prompt" }, h("div", { class: "who win", id: "winner" }, t("game_over"))));
    parts.push(tools, padBox());
  }
  parts.push(h("p", { class: "muted" }, t("file") + ": " + view.file));
  app.replaceChildren(...parts);
}

async function gamePage(id) {
  try {
    render(await api(withToken("/api/games/" + encodeURIComponent(id))));
  } catch (err) { say(err.message); document.getElementById("app").replaceChildren(h("a", { href: withToken("/") }, t("home"))); }
}

document.addEventListener("keydown", (e) => {
  if (!G || e.target.matches("input, textarea, select")) return;
  if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); post("undo"); }
  else if ((e.ctrlKey || e.metaKey) && e.key === "y") { e.preventDefault(); post("redo"); }
  else if (e.ctrlKey || e.metaKey || e.altKey) return;
  else if (e.key === "h" && G.actions && G.actions.some((a) => a.action === "hit")) post("act", { action: "hit" });
  else if (e.key === "s" && G.actions && G.actions.some((a) => a.action === "stay")) post("act", { action: "stay" });
  else if (e.key === "/" && document.getElementById("card-input")) { e.preventDefault(); document.getElementById("card-input").focus(); }
});

// other phones at the table: pick up their steps
setInterval(async () => {
  if (!G || busy || document.hidden) return;
  try {
    const v = await api(withToken("/api/games/" + G.id));
    if (v.version > G.version && !busy) render(v);  // versions only grow: never go back to an older answer
  } catch (e) { /* the next poll tries again */ }
}, 4000);

(async function main() {
  try { META = await api(withToken("/api/meta?lang=" + encodeURIComponent(LANG))); } catch (err) { say(err.message); return; }
  const m = location.pathname.match(/^\/game\/([A-Za-z0-9_-]+)$/);
  const home = document.getElementById("home");
  home.setAttribute("href", TOKEN && !m ? "/?token=" + encodeURIComponent(TOKEN) : "/");
  home.textContent = "⌂ " + t("home");
  if (m) gamePage(m[1]);
  else if (META.token_required && !META.authorized) say(t("token_needed"));
  else startPage();
})();
