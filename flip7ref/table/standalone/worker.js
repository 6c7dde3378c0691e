// The static build's Web Worker (flip7ref table --static): Pyodide runs the reference's
// own Python code here, off the page's thread. standalone.js sends each /api call of the
// page as {id, method, path, query, headers, body}; the answer is {id, status, type,
// headers, body} from flip7ref.table.browser.request, i.e. the server's routes.
// Games live in /games, a folder kept in the browser's IndexedDB (synced after each change).
// While loading, the bytes received of each large file are posted to the page ({progress}).
const LIB = "/lib/flip7ref";  // flip7ref.static_build.LIB
const DATA = "/games";
const SIZES = {/*SIZES*/};  // the build writes the size of each file counted: name -> bytes

// Every fetch of a counted file (Pyodide's own too: it calls fetch when it needs a file)
// reads its body through a counter, so the page shows real progress, not one line.
const received = Object.fromEntries(Object.keys(SIZES).map((name) => [name, 0]));
const total = Object.values(SIZES).reduce((a, b) => a + b, 0);
let shown = 0;
function report(force) {
  const now = performance.now();
  if (!force && now - shown < 150) return;
  shown = now;
  const done = Object.values(received).reduce((a, b) => a + b, 0);
  const current = Object.keys(SIZES).find((name) => received[name] > 0 && received[name] < SIZES[name]) || null;
  self.postMessage({ progress: { done, total, file: current, files: { ...received } } });
}
const realFetch = self.fetch.bind(self);
self.fetch = async function (input, init) {
  const res = await realFetch(input, init);
  const url = new URL(typeof input === "string" ? input : input.url || String(input), self.location.href);
  const base = new URL("./", import.meta.url).href;
  const name = url.href.startsWith(base) ? url.href.slice(base.length).split("?")[0] : null;
  if (!name || !(name in SIZES) || !res.ok || !res.body) return res;
  received[name] = 0;
  const counter = new TransformStream({
    transform(chunk, controller) { received[name] += chunk.byteLength; report(false); controller.enqueue(chunk); },
    flush() { report(true); },
  });
  return new Response(res.body.pipeThrough(counter), { status: res.status, statusText: res.statusText, headers: res.headers });
};

function sync(py, load) {
  return new Promise((resolve, reject) => py.FS.syncfs(load, (err) => (err ? reject(err) : resolve())));
}

const ready = (async () => {
  const phases = {};
  let t = performance.now();
  const lap = (name) => { const now = performance.now(); phases[name] = Math.round(now - t); t = now; };
  report(true);
  const { loadPyodide } = await import("./pyodide/pyodide.mjs");  // after fetch is wrapped
  const py = await loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href });
  lap("pyodide");
  const zip = await fetch(new URL("./flip7ref.zip", import.meta.url));
  if (!zip.ok) throw new Error("flip7ref.zip: " + zip.status);
  py.unpackArchive(await zip.arrayBuffer(), "zip", { extractDir: LIB });
  py.FS.mkdirTree(DATA);
  py.FS.mount(py.FS.filesystems.IDBFS, {}, DATA);
  await sync(py, true);  // the games saved earlier in this browser
  lap("files");
  py.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(LIB)})`);
  const browser = py.pyimport("flip7ref.table.browser");
  browser.start(DATA, LIB + "/editions.pickle");
  lap("import");
  self.postMessage({ boot: "ready", phases });
  return { py, browser };
})();
ready.catch((err) => self.postMessage({ boot: "error", error: String(err && err.message || err) }));

let saving = Promise.resolve();

self.onmessage = async (e) => {
  const { id, method, path, query, headers, body } = e.data;
  let out;
  try {
    const { py, browser } = await ready;
    out = JSON.parse(browser.request(method, path, JSON.stringify(query || {}), JSON.stringify(headers || {}), body || ""));
    if (method !== "GET") {
      // answer once the change is in IndexedDB: a page closed right after a tap loses nothing
      saving = saving.then(() => sync(py, false));
      try { await saving; } catch (err) { out.saveError = String(err && err.message || err); saving = Promise.resolve(); }
    }
  } catch (err) {
    out = { status: 503, type: "application/json", headers: {},
      body: JSON.stringify({ error: "the referee could not start in this browser: " + (err && err.message || err), rules: [] }) };
  }
  self.postMessage({ id, ...out });
};
