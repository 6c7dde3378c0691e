// The static build's Web Worker (flip7ref table --static): Pyodide runs the reference's
// own Python code here, off the page's thread. standalone.js sends each /api call of the
// page as {id, method, path, query, headers, body}; the answer is {id, status, type,
// headers, body} from flip7ref.table.browser.request, i.e. the server's routes.
// Games live in /games, a folder kept in the browser's IndexedDB (synced after each change).
import { loadPyodide } from "./pyodide/pyodide.mjs";

const LIB = "/lib/flip7ref";  // flip7ref.static_build.LIB
const DATA = "/games";

function sync(py, load) {
  return new Promise((resolve, reject) => py.FS.syncfs(load, (err) => (err ? reject(err) : resolve())));
}

const ready = (async () => {
  const phases = {};
  let t = performance.now();
  const lap = (name) => { const now = performance.now(); phases[name] = Math.round(now - t); t = now; };
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
