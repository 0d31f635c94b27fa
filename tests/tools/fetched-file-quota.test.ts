import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { files } from "@/lib/db/schema";
import { duckDuckGoPage } from "@/tests/support/fake-web";
import { setupToolEnv } from "@/tests/support/tool-env";

const env = setupToolEnv({ MAX_FILES_PER_CONVERSATION: "1" });

function serveFile(path: string, body: string) {
  env.web().routes.set("/html/", {
    body: duckDuckGoPage([{ title: "Data", href: `${env.web().url}${path}`, snippet: "About data" }]),
  });
  env.web().routes.set(path, { headers: { "content-type": "text/csv" }, body });
}

const storedFiles = async () =>
  env.db().select({ id: files.id }).from(files).where(eq(files.conversationId, env.conversationId));

describe("search_and_fetch under the file quotas", () => {
  it("says it could not store a file past MAX_FILES_PER_CONVERSATION, and neither stores nor reads it", async () => {
    serveFile("/first.csv", "a,b\n1,2\n");
    expect(await env.run("search_and_fetch", { query: "numbers", file_type: "csv" })).toContain(
      "Saved as: attachment:",
    );
    expect(await storedFiles()).toHaveLength(1);

    serveFile("/second.csv", "c,d\n3,4\n");
    const result = await env.run("search_and_fetch", { query: "more numbers", file_type: "csv" });
    expect(result).toContain(
      "The file was downloaded but not stored, so it was not read: this conversation already holds 1 files",
    );
    expect(result).not.toContain("Saved as:");
    expect(result).not.toContain("c,d");
    expect(await storedFiles()).toHaveLength(1);

    const japanese = await env.run("search_and_fetch", { query: "more numbers", file_type: "csv" }, { language: "ja" });
    expect(japanese).toContain("保存できなかった");
  });
});
