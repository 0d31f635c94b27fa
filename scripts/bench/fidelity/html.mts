/**
 * bench:fidelity, HTML: boilerplate share and recall of the main text on a documentation page with
 * header, nav, sidebar, breadcrumbs, table of contents, pager and footer; mid-word cuts of the paged
 * text; and the 108-call continuation chain of scrape_url over a 431 k-character page.
 */
import { randomBytes } from "node:crypto";
import { parseConfig } from "@/lib/env-config";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { extractHtmlText } from "@/lib/tools/html-text";
import { renderObservation } from "@/lib/tools/outcome";
import { parsePageInfo } from "@/lib/tools/page-info";
import { pageTextCacheFor } from "@/lib/tools/page-text-cache";
import type { ToolServices } from "@/lib/tools/services";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { sized } from "../smoke-mode.mts";
import { fmt } from "../support.mts";

const MAIN = [
  "設定ファイルの書き方",
  "設定ファイルはサーバーの起動時に一度だけ読み込まれます。変更を反映するには再起動してください。",
  "| 名前 | 既定値 | 説明 |",
  "| timeout | 30 | 応答を待つ秒数 |",
  "3. 設定ファイルを開く",
  "4. 値を書き換える",
  "def load(path):\n    with open(path) as f:\n\n        return parse(f.read())",
  "The `include` key merges another file; later keys win over earlier ones.",
];
const BOILERPLATE = [
  "Example Docs ホーム ブログ コミュニティ",
  "ドキュメントを検索",
  "はじめに インストール 設定 運用 トラブルシューティング リリースノート",
  "ホーム ドキュメント",
  "このページの内容 概要 書き方 include",
  "← 前へ: インストール 次へ: 運用 →",
  "© 2026 Example Project. 利用規約 プライバシー お問い合わせ",
];

const DOCS_PAGE = `<!DOCTYPE html><html><head><title>設定 | Example Docs</title></head><body>
<header><a href="/">Example Docs</a> <a href="/">ホーム</a> <a href="/blog">ブログ</a> <a href="/c">コミュニティ</a>
<form role="search"><label>ドキュメントを検索</label><input></form></header>
<div class="layout"><div class="sidebar"><a href="/a">はじめに</a> <a href="/b">インストール</a> <a href="/c">設定</a>
<a href="/d">運用</a> <a href="/e">トラブルシューティング</a> <a href="/f">リリースノート</a></div>
<div class="content"><ol class="breadcrumbs"><li><a href="/">ホーム</a></li><li><a href="/docs">ドキュメント</a></li><li>設定</li></ol>
<h1>${MAIN[0]}<a class="anchor" href="#top">#</a></h1><p>${MAIN[1]}</p>
<table><thead><tr><th>名前</th><th>既定値</th><th>説明</th></tr></thead><tbody><tr><td>timeout</td><td>30</td><td>応答を待つ秒数</td></tr></tbody></table>
<ol start="3"><li>設定ファイルを開く</li><li>値を書き換える</li></ol>
<pre><code class="language-python">${MAIN[6]}</code></pre>
<p>The <code>include</code> key merges another file; later keys win over earlier ones.</p>
<div class="pager"><a href="/b">← 前へ: インストール</a> <a href="/d">次へ: 運用 →</a></div></div>
<div class="toc"><p>このページの内容</p><ul><li><a href="#a">概要</a></li><li><a href="#b">書き方</a></li><li><a href="#c">include</a></li></ul></div></div>
<footer>© 2026 Example Project. <a href="/t">利用規約</a> <a href="/p">プライバシー</a> <a href="/c">お問い合わせ</a></footer>
</body></html>`;

const squash = (text: string) => text.replace(/\s+/g, "");
const chars = (parts: string[]) => parts.reduce((sum, part) => sum + squash(part).length, 0);

const LONG_PARAGRAPH =
  "Paging a long page must neither lose nor repeat a character, and each page should end between words so the model never reads a word confusingly cut in two. ";

export default async function html(): Promise<string[]> {
  const missed: string[] = [];
  const text = squash(extractHtmlText(DOCS_PAGE).text);
  const kept = BOILERPLATE.filter((part) => text.includes(squash(part)));
  const found = MAIN.filter((part) => text.includes(squash(part)));
  const boilerplateShare = chars(kept) / chars(BOILERPLATE);
  const recall = chars(found) / chars(MAIN);
  console.log(
    `  docs page: boilerplate kept ${fmt(boilerplateShare * 100, 1)} % (goal ≤ 15 %), main text recall ${fmt(recall * 100, 1)} %`,
  );
  if (boilerplateShare > 0.15) missed.push(`HTML boilerplate kept ${fmt(boilerplateShare * 100, 1)} % > 15 %`);

  const page = `<html><body><article>${Array.from({ length: sized(2650, 50) }, (_, i) => `<p>${i}: ${LONG_PARAGRAPH}</p>`).join("")}</article></body></html>`;
  const config = parseConfig({});
  const services: ToolServices = {
    limits: config,
    secret: randomBytes(32),
    fetch: async (url) => ({
      url,
      status: 200,
      headers: {},
      contentType: "text/html",
      mime: "text/html",
      charset: null,
      bytes: Buffer.from(page),
    }),
    files: {
      get: async () => null,
      saveFetched: async () => {
        throw new Error("no files here");
      },
    },
    pageCache: pageTextCacheFor(config),
  };
  const registry = createBuiltinRegistry(services);
  const context = {
    conversationId: "bench",
    signal: new AbortController().signal,
    language: "en" as const,
    urlGuard: new UrlLeakGuard(config),
  };
  const full = extractHtmlText(page).text;
  const bodies: string[] = [];
  const started = performance.now();
  let args: Record<string, unknown> = { url: "https://example.com/long" };
  for (;;) {
    const read = parsePageInfo(
      renderObservation(
        await registry.execute("scrape_url", args, context, { maxResultChars: config.MAX_TOOL_RESULT_CHARS }),
      ),
    );
    bodies.push(read.body);
    if (!read.pageInfo) break;
    args = { continue_from: read.pageInfo.nextToken };
  }
  const seconds = (performance.now() - started) / 1000;
  const lossless = bodies.join("") === full;
  let offset = 0;
  let midWord = 0;
  for (const body of bodies.slice(0, -1)) {
    offset += body.length;
    if (/[\p{L}\p{N}]/u.test(full[offset - 1] ?? "") && /[\p{L}\p{N}]/u.test(full[offset] ?? "")) midWord++;
  }
  const cuts = Math.max(1, bodies.length - 1);
  console.log(
    `  ${fmt(full.length / 1000, 0)} k characters: ${bodies.length} calls in ${fmt(seconds, 2)} s (goal ≤ 3 s), lossless: ${lossless}, mid-word cuts ${fmt((midWord / cuts) * 100, 1)} % (goal ≤ 5 %)`,
  );
  if (seconds > 3) missed.push(`HTML continuation chain ${fmt(seconds, 2)} s > 3 s`);
  if (!lossless) missed.push("HTML paging is not lossless");
  if (midWord / cuts > 0.05) missed.push(`HTML mid-word cuts ${fmt((midWord / cuts) * 100, 1)} % > 5 %`);
  return missed;
}
