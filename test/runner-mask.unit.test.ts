// lib/agents/runner/mask.ts: [RN4] secret values never leave the runner, whole, base64'd, or split.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, SecretMask } from "@/lib/agents/runner/mask";

const secrets = { API_KEY: "sk-live-123456", SHORT: "abc", DB_PASSWORD: "hunter2!", LONGER: "sk-live-123456-extra" };

describe("[RN4] SecretMask", () => {
  const mask = new SecretMask(secrets);

  it("masks every occurrence of each value, the longest first", () => {
    expect(mask.text("key=sk-live-123456 and again sk-live-123456.")).toBe(
      "key=[masked:API_KEY] and again [masked:API_KEY].",
    );
    // LONGER contains API_KEY's value: it is masked whole, leaving no readable remainder.
    expect(mask.text("x sk-live-123456-extra y")).toBe("x [masked:LONGER] y");
    expect(mask.text("pw: hunter2!")).toBe("pw: [masked:DB_PASSWORD]");
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters, and is a no-op without secrets`, () => {
    expect(mask.text("abc abcabc")).toBe("abc abcabc");
    expect(new SecretMask({}).text("anything sk-live-123456")).toBe("anything sk-live-123456");
    expect(new SecretMask({ A: "" }).has("")).toBe(false);
  });

  it("masks the base64 form, padded or not", () => {
    const b64 = Buffer.from("hunter2!").toString("base64"); // aHVudGVyMiE=
    expect(mask.text(`Authorization: Basic ${b64}`)).toBe("Authorization: Basic [masked:DB_PASSWORD]");
    expect(mask.text(`token ${b64.replace(/=+$/, "")}.`)).toBe("token [masked:DB_PASSWORD].");
  });

  it("treats regex characters in values literally", () => {
    const m = new SecretMask({ WEIRD: "a.b*c(d)[e]$" });
    expect(m.text("aXbbbc(d)[e]$ a.b*c(d)[e]$")).toBe("aXbbbc(d)[e]$ [masked:WEIRD]");
  });

  it("masks bytes, keeping every other byte exactly (binary data, invalid UTF-8)", () => {
    const m = new SecretMask({ TOKEN: "päss-wörd" });
    const noise = randomBytes(2000);
    const input = Buffer.concat([noise, Buffer.from("päss-wörd", "utf8"), Buffer.from([0xff, 0xc3]), noise]);
    const out = m.bytes(input);
    expect(out.equals(Buffer.concat([noise, Buffer.from("[masked:TOKEN]"), Buffer.from([0xff, 0xc3]), noise]))).toBe(
      true,
    );
    expect(m.has(input)).toBe(true);
    expect(m.has(out)).toBe(false);
    expect(m.bytes(noise).equals(noise)).toBe(true);
  });

  it("has() finds values in text and bytes, repeatably", () => {
    expect(mask.has("nothing here")).toBe(false);
    expect(mask.has("…sk-live-123456…")).toBe(true);
    expect(mask.has("…sk-live-123456…")).toBe(true); // no stale regex state between calls
    expect(mask.has(Buffer.from("x hunter2! y"))).toBe(true);
  });
});

describe("[RN4] SecretMask.stream", () => {
  const mask = new SecretMask(secrets);

  it("masks a value split across two chunks", () => {
    const s = mask.stream();
    const out = s("export API_KEY=sk-li") + s("ve-123456\nnext line\n") + s("", true);
    expect(out).toBe("export API_KEY=[masked:API_KEY]\nnext line\n");
  });

  it("holds back only the last maxLen-1 characters and flushes them on final", () => {
    const s = mask.stream();
    // The longest needle is the padded base64 of the longest value.
    const longest = Buffer.from("sk-live-123456-extra").toString("base64").length;
    const first = s("a".repeat(100));
    expect(first).toBe("a".repeat(100 - (longest - 1)));
    expect(s("", true)).toBe("a".repeat(longest - 1));
  });

  it("equals masking the whole text, however the stream is cut", () => {
    const parts = [
      "sk-live-123456-extra",
      "sk-live-123456",
      "hunter2!",
      Buffer.from("hunter2!").toString("base64"),
      "sk-",
      "hun",
      "x",
      "\n",
      "é",
      "😀",
    ];
    for (let trial = 0; trial < 300; trial++) {
      let whole = "";
      for (let i = 0; i < 40; i++) whole += parts[Math.floor(Math.random() * parts.length)];
      const s = mask.stream();
      let out = "";
      let i = 0;
      while (i < whole.length) {
        const n = Math.floor(Math.random() * 12);
        out += s(whole.slice(i, i + n));
        i += n;
      }
      out += s("", true);
      expect(out).toBe(mask.text(whole));
      expect(mask.has(out)).toBe(false);
    }
  });

  it("never emits half of a surrogate pair", () => {
    const m = new SecretMask({ K: "abcd" }); // longest needle "YWJjZA==": holds back 7 UTF-16 units
    const s = m.stream();
    const out = s("xx😀yyyyyy");
    // 10 units; a cut at 3 would fall inside 😀 (units 2–3): it moves back before it.
    expect(out).toBe("xx");
    expect(s("", true)).toBe("😀yyyyyy");
  });

  it("passes chunks straight through without secrets", () => {
    const s = new SecretMask({}).stream();
    expect(s("abc")).toBe("abc");
    expect(s("", true)).toBe("");
  });
});
