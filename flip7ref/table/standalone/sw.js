// The static build's service worker (flip7ref table --static): on install it caches every
// file of the build (the list below is written by the build, with its digest: revalidated with
// the server, so a file the page has just loaded is not downloaded a second time), then it
// answers every request of the folder from that cache: the page works offline.
// A new build has a new digest, hence a new sw.js: the browser installs it and the old
// cache of this folder is removed.
"use strict";
const BUILD = "__BUILD__";
const FILES = [/*FILES*/];
const PREFIX = "flip7ref-table " + self.registration.scope + " ";
const CACHE = PREFIX + BUILD;

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES.map((f) => new Request(f, { cache: "no-cache" })))).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== "GET" || !url.href.startsWith(self.registration.scope)) return;
  // ?game=ID is the same page: ignore the query
  e.respondWith(caches.open(CACHE).then((c) => c.match(e.request, { ignoreSearch: true })).then((hit) => hit || fetch(e.request)));
});

self.addEventListener("message", (e) => {
  if (e.data === "build") e.source.postMessage({ build: BUILD, files: FILES.length });
});
