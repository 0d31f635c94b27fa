import { describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/http/responses";
import { AppError } from "./errors";

describe("AppError", () => {
  it("an AppError made by another copy of its module (Next.js bundles the server's start apart from the routes) is answered with its status", async () => {
    const anotherBundle = "./errors?another-bundle";
    const copy = (await import(/* @vite-ignore */ anotherBundle)) as typeof import("./errors");
    expect(copy.AppError).not.toBe(AppError);
    const relayed = new copy.AppError("unavailable:instance_unreachable", "No answer.", {
      retryable: true,
      details: { retryAfterSeconds: 5 },
    });
    expect(relayed instanceof AppError).toBe(true);
    const response = errorResponse(relayed);
    expect([response.status, response.headers.get("Retry-After")]).toEqual([503, "5"]);
    expect(await response.json()).toMatchObject({
      error: { code: "unavailable:instance_unreachable", retryable: true },
    });
  });

  it("nothing else passes for one", () => {
    expect([new Error("x"), { code: "conflict" }, null, "conflict"].some((value) => value instanceof AppError)).toBe(
      false,
    );
  });

  it("takes only a code of the catalogue: one it does not list does not compile", () => {
    // @ts-expect-error not a code of lib/protocol/error-codes.ts
    const error = new AppError("not_found:gremlin", "x");
    // @ts-expect-error the browser's own codes are never the server's
    const client = new AppError("client:network", "x");
    expect([error.code, client.code]).toEqual(["not_found:gremlin", "client:network"]);
  });
});
