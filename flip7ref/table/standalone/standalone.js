// The static build of the table referee (flip7ref table --static): loaded before app.js.
// There is no server: every fetch of an /api address, and every tap on a link to one, is
// answered by worker.js, which runs the reference's own Python code (the server's routes)
// in Pyodide. Games are saved in this browser (IndexedDB); a game's transcript can be
// exported as the same .json file the server saves, and imported again here or on a server.
// sw.js (a service worker) keeps every file, so the page works offline once loaded.
"use strict";
window.FLIP7REF_STANDALONE = true;  // app.js: a game's page is ?game=ID, home is ./

(function () {
  const TEXTS = {
    en: { loading: "Loading the referee into this browser (once; then it works offline)…",
      failed: "The referee could not start in this browser", export: "⇩ Transcript (.json)", export_table: "⇩ Table file",
      import: "⇧ Import a saved game (.json)", imported: "Imported", not_saved: "Not saved in this browser",
      offline: "Ready offline", bad_file: "not a JSON file", mb: "MB" },
    nl: { loading: "De scheidsrechter wordt in deze browser geladen (één keer; daarna werkt hij offline)…",
      failed: "De scheidsrechter kon niet starten in deze browser", export: "⇩ Verslag (.json)", export_table: "⇩ Tafelbestand",
      import: "⇧ Opgeslagen spel importeren (.json)", imported: "Geïmporteerd", not_saved: "Niet opgeslagen in deze browser",
      offline: "Werkt offline", bad_file: "geen JSON-bestand", mb: "MB" },
    de: { loading: "Der Schiedsrichter wird in diesen Browser geladen (einmal; danach geht es offline)…",
      failed: "Der Schiedsrichter konnte in diesem Browser nicht starten", export: "⇩ Protokoll (.json)", export_table: "⇩ Tischdatei",
      import: "⇧ Gespeichertes Spiel importieren (.json)", imported: "Importiert", not_saved: "In diesem Browser nicht gespeichert",
      offline: "Offline bereit", bad_file: "keine JSON-Datei", mb: "MB" },
    fr: { loading: "Chargement de l'arbitre dans ce navigateur (une fois ; ensuite il marche hors ligne)…",
      failed: "L'arbitre n'a pas pu démarrer dans ce navigateur", export: "⇩ Transcription (.json)", export_table: "⇩ Fichier de table",
      import: "⇧ Importer une partie enregistrée (.json)", imported: "Importé", not_saved: "Non enregistré dans ce navigateur",
      offline: "Prêt hors ligne", bad_file: "pas un fichier JSON", mb: "Mo" },
    no: { loading: "Dommeren lastes inn i denne nettleseren (én gang; deretter virker den uten nett)…",
      failed: "Dommeren kunne ikke starte i denne nettleseren", export: "⇩ Referat (.json)", export_table: "⇩ Bordfil",
      import: "⇧ Importer et lagret spill (.json)", imported: "Importert", not_saved: "Ikke lagret i denne nettleseren",
      offline: "Klar uten nett", bad_file: "ikke en JSON-fil", mb: "MB" },
  };
  function tr(key) {
    const lang = document.documentElement.lang || localStorage.getItem("flip7ref-lang") || "en";
    return (TEXTS[lang] || TEXTS.en)[key] || TEXTS.en[key];
  }
  function note(text, info) {
    const m = document.getElementById("msg");
    if (!m) return;
    m.className = info ? "info" : "";
    m.textContent = text;
  }

  // ------------------------------------------------------------ the worker
  const worker = new Worker("worker.js", { type: "module" });
  const waiting = new Map();
  let next = 1;
  let booted = false;
  let loadingText = null;  // the loading line last shown (cleared once the referee is ready)
  let progress = null;  // {done, total, file}: the bytes received of the files the worker counts
  function mb(n) { return (n / 1e6).toFixed(1); }
  function showLoading() {
    if (booted) return;
    let text = tr("loading");
    if (progress && progress.total) {
      const pct = Math.floor((100 * progress.done) / progress.total);
      text += ` ${pct} % (${mb(progress.done)} / ${mb(progress.total)} ${tr("mb")}` + (progress.file ? `, ${progress.file.split("/").pop()})` : ")");
    }
    loadingText = text;
    note(text, true);
  }
  const boot = new Promise((resolve, reject) => {
    worker.addEventListener("message", (e) => {
      const m = e.data;
      if (m.progress) { progress = m.progress; window.FLIP7REF_PROGRESS = m.progress; if (document.getElementById("msg")) showLoading(); }
      else if (m.boot === "ready") { booted = true; window.FLIP7REF_BOOT = m.phases; resolve(); }
      else if (m.boot === "error") reject(new Error(m.error));
      else if (m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
    });
    worker.addEventListener("error", (e) => reject(new Error(e.message || "worker.js")));
  });
  boot.then(() => { const m = document.getElementById("msg"); if (m && m.textContent === loadingText) note(""); },
    (err) => note(tr("failed") + ": " + err.message));
  document.addEventListener("DOMContentLoaded", showLoading);

  function call(method, path, query, headers, body) {
    const id = next++;
    return new Promise((resolve) => { waiting.set(id, resolve); worker.postMessage({ id, method, path, query, headers, body }); });
  }

  // the API path of an address the page asks for ("/api/..." or "api/..." beside the page), else null
  const BASE = new URL("./", location.href).pathname;
  function apiPath(raw) {
    if (typeof raw !== "string") return null;
    if (raw.startsWith("/api/")) return new URL(raw, location.origin);
    const url = new URL(raw, location.href);
    if (url.origin === location.origin && url.pathname.startsWith(BASE + "api/")) {
      url.pathname = url.pathname.slice(BASE.length - 1);
      return url;
    }
    return null;
  }

  const realFetch = window.fetch.bind(window);
  window.fetch = async function (input, init) {
    const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input && input.url;
    const url = apiPath(raw);
    if (!url) return realFetch(input, init);
    init = init || {};
    const headers = {};
    new Headers(init.headers || {}).forEach((v, k) => { headers[k.toLowerCase()] = v; });
    const body = typeof init.body === "string" ? init.body : "";
    try { await boot; } catch (err) {
      return new Response(JSON.stringify({ error: tr("failed") + ": " + err.message, rules: [] }), { status: 503, headers: { "Content-Type": "application/json" } });
    }
    const m = await call((init.method || "GET").toUpperCase(), url.pathname, Object.fromEntries(url.searchParams), headers, body);
    if (m.saveError) setTimeout(() => note(tr("not_saved") + ": " + m.saveError), 0);
    return new Response(m.body, { status: m.status, headers: { "Content-Type": m.type, ...(m.headers || {}) } });
  };

  // ------------------------------------------------------------ files out and in
  async function download(raw) {
    const res = await window.fetch(raw);
    const text = await res.text();
    if (!res.ok) { let e = text; try { e = JSON.parse(text).error; } catch (x) { /* text */ } note(e); return; }
    const cd = res.headers.get("Content-Disposition") || "";
    const name = (cd.match(/filename="([^"]+)"/) || [null, "flip7ref.txt"])[1];
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: res.headers.get("Content-Type") || "text/plain" }));
    a.download = name;
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  window.FLIP7REF_DOWNLOAD = download;

  // a link to an /api address (the score pad's CSV): answered here, saved as a file
  document.addEventListener("click", (e) => {
    const a = e.target.closest && e.target.closest("a[href]");
    if (!a || a.download || !apiPath(a.getAttribute("href"))) return;
    e.preventDefault();
    download(a.getAttribute("href"));
  }, true);

  async function importFiles(list) {
    const body = {};
    for (const file of list) {
      let data;
      try { data = JSON.parse(await file.text()); } catch (err) { note(file.name + ": " + tr("bad_file")); return; }
      if (data && typeof data === "object" && Array.isArray(data.steps)) body.transcript = data;
      else body.table = data;  // a .table.json (a score pad has only this one)
    }
    const res = await window.fetch("/api/games/import", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await res.json();
    if (!res.ok) { note(data.error); return; }
    history.pushState(null, "", "?game=" + encodeURIComponent(data.id));
    window.dispatchEvent(new PopStateEvent("popstate"));  // app.js shows the game (no page load)
  }

  function bar() {
    const game = new URLSearchParams(location.search).get("game");
    const old = document.getElementById("standalone-bar");
    if (old) old.remove();
    const box = document.createElement("nav");
    box.id = "standalone-bar";
    box.className = "tools";
    if (game) {
      for (const [key, file, id] of [["export", "transcript.json", "export"], ["export_table", "table.json", "export-table"]]) {
        const b = document.createElement("button");
        b.id = id;
        b.textContent = tr(key);
        b.addEventListener("click", () => download("/api/games/" + encodeURIComponent(game) + "/" + file));
        box.append(b);
      }
    } else {
      const label = document.createElement("label");
      label.className = "import";
      const input = document.createElement("input");
      input.type = "file";
      input.id = "import";
      input.accept = ".json,application/json";
      input.multiple = true;
      input.addEventListener("change", () => { if (input.files.length) importFiles(input.files); });
      label.append(tr("import") + " ", input);
      box.append(label);
    }
    const status = document.createElement("span");
    status.id = "offline";
    status.className = "muted";
    box.append(status);
    document.querySelector("main").after(box);
    if ("serviceWorker" in navigator) navigator.serviceWorker.ready.then(() => { status.textContent = "✓ " + tr("offline"); });
  }
  document.addEventListener("flip7ref:route", bar);  // app.js, after each page it shows

  // ------------------------------------------------------------ offline
  // registered once the referee has started: its files are then in the browser's HTTP cache, and
  // the service worker's copy of them costs a revalidation each, not a second download
  if ("serviceWorker" in navigator) {
    const register = () => navigator.serviceWorker.register("sw.js").catch((err) => console.warn("flip7ref: no offline copy:", err));
    boot.then(register, register);
  }
})();
