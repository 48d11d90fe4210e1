import { describe, expect, it } from "vitest";
import { storable, unstorableTextAt } from "../lib/core/protocol/unicode";

describe("[HTTP4] [OTL10] text the store cannot hold", () => {
  it("is found with its pointer, keys included; whole pairs and the six characters \\u0000 are text", () => {
    expect(unstorableTextAt({ a: ["ok", { b: "x\u0000" }] })).toEqual({
      pointer: "/a/1/b",
      why: expect.stringMatching(/U\+0000/),
    });
    expect(unstorableTextAt({ "a/b": { "\ud83d": 1 } })?.pointer).toBe("/a~1b/\ud83d");
    expect(unstorableTextAt({ t: "😀 \\u0000", n: 0, z: null })).toBeNull();
  });

  it("is made storable with U+FFFD, keys included, and what holds none is the same object", () => {
    const clean = { a: ["ok", { b: 1 }], c: "😀" };
    expect(storable(clean)).toBe(clean);
    const dirty = { a: ["ok", { b: "x\u0000y" }], "k\udc00": "\ud83d!", keep: clean };
    const made = storable(dirty);
    expect(made).toEqual({ a: ["ok", { b: "x\ufffdy" }], "k\ufffd": "\ufffd!", keep: clean });
    expect(made.keep).toBe(clean);
    expect(dirty.a[1]).toEqual({ b: "x\u0000y" }); // the input is not changed
  });
});
