// The web the agent can reach in e2e: a few pages, a PDF and a DuckDuckGo-shaped search endpoint,
// on loopback only. Playwright starts it (see playwright.config.ts); the app is allowed to fetch
// from it through FETCH_ALLOW_PRIVATE, never by weakening the SSRF guard.
//   FAKE_WEB_PORT=11500 npx tsx e2e/support/fake-web-server.ts
// `/slow/<path>?ms=N` serves <path> after N milliseconds, for tests that need a tool call to take time.
import { createServer, type ServerResponse } from "node:http";
import { makeTextPdf } from "../../tests/support/pdf-fixtures";
import { WEB_PAGES } from "./web-pages";

const port = Number(process.env.FAKE_WEB_PORT ?? "11500");
const base = `http://127.0.0.1:${port}`;

function searchPage(): string {
  const results = [
    { title: "The quokka", href: `${base}/quokka.html`, snippet: "A small marsupial of Rottnest Island." },
    { title: "Quokka facts (PDF)", href: `${base}/quokka-facts.pdf`, snippet: "Two pages of facts." },
  ];
  const items = results
    .map(
      (r) => `<div class="result results_links web-result">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(r.href)}&amp;rut=e2e">${r.title}</a></h2>
  <a class="result__snippet" href="#">${r.snippet}</a>
</div>`,
    )
    .join("\n");
  return `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body><div id="links" class="results">${items}</div></body></html>`;
}

function serve(res: ServerResponse, path: string) {
  if (path === "/health") return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  if (path === "/html/" || path === "/html") {
    return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(searchPage());
  }
  if (path === "/quokka-facts.pdf") {
    const pdf = makeTextPdf([["Quokka facts", "Quokkas weigh 2.5 to 5 kg."], ["They live on Rottnest Island."]]);
    return res.writeHead(200, { "content-type": "application/pdf" }).end(Buffer.from(pdf));
  }
  const page = WEB_PAGES[path];
  if (page) return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  res.writeHead(404, { "content-type": "text/plain" }).end("not found");
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", base);
  // The body (DuckDuckGo's form) is read and ignored: every search finds the same pages.
  req.resume();
  req.on("end", () => {
    const slow = /^\/slow(\/.*)$/.exec(url.pathname);
    if (!slow?.[1]) return serve(res, url.pathname);
    const ms = Math.min(Number(url.searchParams.get("ms") ?? "1000") || 0, 30_000);
    const timer = setTimeout(() => serve(res, slow[1] ?? "/"), ms);
    res.on("close", () => clearTimeout(timer));
  });
});

server.listen(port, "127.0.0.1", () => console.log(`fake web listening on ${base}`));
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
