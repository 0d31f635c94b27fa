import { createTranslator } from "use-intl";
import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import { describeError, type ErrorTranslator, errorKey, toErrorInfo } from "./error-text";

const translator = (locale: "en" | "ja"): ErrorTranslator =>
  createTranslator({ locale, messages: { en, ja }[locale], namespace: "errors" }) as unknown as ErrorTranslator;
/** An error as it comes from the wire (a code this page may not know), worded as the UI words it. */
const say = (locale: "en" | "ja", error: { code: string; message: string; details?: unknown }) =>
  describeError(toErrorInfo(error), translator(locale), locale);

describe("describeError", () => {
  it("finds a code's message under its kind and name, and a bare kind's under default", () => {
    expect(errorKey("not_found:conversation")).toBe("not_found.conversation");
    expect(errorKey("internal")).toBe("internal.default");
  });

  it("words a known code in the UI's language, not the server's English", () => {
    const error = {
      code: "unauthorized:credentials",
      message: "Wrong username or password, or the account is disabled.",
    };
    expect(say("ja", error)).toBe("ユーザー名かパスワードが違うか、アカウントが無効になっています。");
    expect(say("en", error)).toBe(error.message);
  });

  it("fills the message's parameters from the error's details", () => {
    const error = {
      code: "conflict:model_missing",
      message: "Model 'llama3.2' is gone.",
      details: { model: "llama3.2" },
    };
    expect(say("ja", error)).toContain("「llama3.2」");
  });

  it("gives byte limits as sizes and Retry-After as a duration in the UI's language", () => {
    expect(
      say("ja", { code: "rate_limited:interrupt_bytes", message: "x", details: { maxBytes: 16 * 1024 } }),
    ).toContain("16 KB");
    const login = { code: "rate_limited:login", message: "Too many.", details: { retryAfterSeconds: 900 } };
    expect(say("en", login)).toBe("Too many failed sign-ins. Try again in 15 minutes.");
    expect(say("ja", login)).toBe("サインインの失敗が多すぎます。15 分後にもう一度お試しください。");
    expect(say("en", { ...login, details: { retryAfterSeconds: 30 } })).toContain("30 seconds");
  });

  it("falls back to a generic sentence with the server's English message for an unknown code, never the raw code", () => {
    const error = { code: "conflict:something_new", message: "The thing is locked." };
    const text = say("ja", error);
    expect(text).toBe("問題が発生しました。サーバーからの説明（英語）: The thing is locked.");
    expect(text).not.toContain("something_new");
  });

  it("falls back to the generic sentence when a message needs a detail the error lacks", () => {
    const text = say("ja", { code: "conflict:model_missing", message: "Model gone." });
    expect(text).toBe("問題が発生しました。サーバーからの説明（英語）: Model gone.");
  });

  it("takes a null detail as none, so a select still reads", () => {
    const error = {
      code: "conflict:no_vision_model",
      message: "x",
      details: { model: "m", vision: null, problem: "none" },
    };
    expect(say("en", error)).toBe("m can’t see images. Set a vision model in Settings, or pick a model with vision.");
  });

  it("words a refused field from its first validation issue, with the field's name and limit", () => {
    const issue = { code: "too_big", origin: "string", maximum: 200, path: ["title"], message: "Too big" };
    const error = {
      code: "bad_request:validation",
      message: "Invalid request: title: Too big",
      details: { issues: [issue] },
    };
    expect(say("ja", error)).toBe("タイトルは200文字以内にしてください。");
    const empty = { ...issue, code: "too_small", minimum: 1 };
    expect(say("en", { ...error, details: { issues: [empty] } })).toBe("The title must not be empty.");
    const other = { code: "invalid_type", path: ["settings", "seed"], message: "Expected number" };
    expect(say("ja", { ...error, details: { issues: [other] } })).toBe("シードが正しくありません。");
    const unnamed = { ...other, path: ["settings", "flux"] };
    expect(say("en", { ...error, details: { issues: [unnamed] } })).toBe("settings.flux is not valid.");
  });

  it("words a validation error without issues with the server's message", () => {
    expect(say("en", { code: "bad_request:validation", message: "Invalid request: file: a file is required." })).toBe(
      "The request was refused: Invalid request: file: a file is required.",
    );
  });

  it("takes anything thrown: a coded error as it is, anything else as a client failure with its text", () => {
    expect(toErrorInfo(new TypeError("boom"))).toEqual({ code: "client:failed", message: "boom" });
    expect(toErrorInfo("plain")).toEqual({ code: "client:failed", message: "plain" });
    expect(toErrorInfo({ code: "not_found:file", message: "gone", details: { a: 1 } })).toEqual({
      code: "not_found:file",
      message: "gone",
      details: { a: 1 },
    });
  });
});
