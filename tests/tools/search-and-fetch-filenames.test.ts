import { describe, expect, it } from "vitest";
import { files } from "@/lib/db/schema";
import { duckDuckGoPage } from "@/tests/support/fake-web";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { setupToolEnv } from "@/tests/support/tool-env";

const env = setupToolEnv();

/**
 * One search result of the type asked for that redirects to `path`, which serves `body` as
 * `contentType` (the name comes from where the file was fetched); returns the stored file's name.
 */
async function storedNameOf(path: string, fileType: string, contentType: string, body: string | Buffer) {
  const web = env.web();
  const result = `/go/result.${fileType}`;
  web.routes.set("/html/", {
    body: duckDuckGoPage([{ title: "Result", href: `${web.url}${result}`, snippet: "about it" }]),
  });
  web.routes.set(result, { status: 302, headers: { location: `${web.url}${path}` }, body: "" });
  web.routes.set(path, { headers: { "content-type": contentType }, body });
  await env.run("search_and_fetch", { query: "anything", file_type: fileType });
  const stored = await await env.db().select().from(files);
  expect(stored).toHaveLength(1);
  return stored[0]?.filename;
}

describe("search_and_fetch file names", () => {
  it.each([
    ["a right-to-left override", "/r/invoice%E2%80%AEfdp.txt", "txt", "invoice_fdp.txt"],
    ["isolates and marks", "/r/note%E2%81%A6x%E2%81%A9%E2%80%8F.md", "md", "note_x__.md"],
    ["CR/LF", "/r/a%0D%0AContent-Type%3A%20x.csv", "csv", "a__Content-Type_ x.csv"],
    ["HTML", "/r/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.txt", "txt", "_img src=x onerror=alert(1)_.txt"],
    ["directories", "/r/..%2F..%2Fetc%2Fpasswd", "txt", "passwd.txt"],
    ["a leading dot", "/r/.env", "txt", "env.txt"],
  ])("cleans a name with %s from the URL like an upload's name", async (_what, path, fileType, expected) => {
    expect(await storedNameOf(path, fileType, "text/plain", "body")).toBe(expected);
  });

  it("names a fetched PDF .pdf even when its URL has no extension", async () => {
    const pdf = Buffer.from(makeTextPdf([["x"]]));
    expect(await storedNameOf("/r/paper", "pdf", "application/octet-stream", pdf)).toBe("paper.pdf");
  });

  it("keeps a fetched file's own extension when this tool fetches that type", async () => {
    expect(await storedNameOf("/r/data.json", "csv", "application/json", "{}")).toBe("data.json");
  });

  it("replaces an extension this tool does not fetch with the type asked for", async () => {
    expect(await storedNameOf("/r/page.php", "html", "text/html", "<p>hi</p>")).toBe("page.html");
  });
});
