import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password";

describe("password hashing (scrypt)", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse");
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horsE", hash)).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("never matches a malformed stored hash", async () => {
    for (const stored of ["", "plain", "scrypt$1$2", "bcrypt$x$y$z$a$b"])
      expect(await verifyPassword("x", stored)).toBe(false);
  });

  it("treats Unicode compatibility forms as the same password", async () => {
    expect(await verifyPassword("ｐａｓｓ word", await hashPassword("pass word"))).toBe(true);
  });
});
