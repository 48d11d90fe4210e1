import { describe, expect, it } from "vitest";
import { ApiError } from "../lib/browser/api";
import { placeRefusal } from "../lib/browser/refusal";

const problem = (detail: string, errors: { pointer: string; message: string }[]) =>
  new ApiError(422, { code: "validation_failed", detail, errors });

describe("[UI7] a refusal shows at its field, or as the form's line", () => {
  it("puts each fault beside the field its pointer names, and no line when every fault has its field", () => {
    const r = placeRefusal(
      problem("2 fields", [
        { pointer: "/title", message: "too long" },
        { pointer: "/repository", message: "unknown" },
      ]),
      ["title", "prompt", "repository"],
    );
    expect(r).toMatchObject({ line: null, fields: { title: "too long", repository: "unknown" } });
    expect(r.error?.code).toBe("validation_failed");
  });

  it("says which line of a list field is wrong", () => {
    const r = placeRefusal(problem("bad glob", [{ pointer: "/write_scope/2", message: "not a glob" }]), [
      "write_scope",
    ]);
    expect(r.fields).toEqual({ write_scope: "line 3: not a glob" });
  });

  it("keeps the first fault of a field", () => {
    const r = placeRefusal(
      problem("x", [
        { pointer: "/secrets/0", message: "first" },
        { pointer: "/secrets/1", message: "second" },
      ]),
      ["secrets"],
    );
    expect(r.fields).toEqual({ secrets: "line 1: first" });
  });

  it("says the detail as the form's line when a fault names no field the form shows", () => {
    const r = placeRefusal(
      problem("space_id: not a room of this workspace", [
        { pointer: "/space_id", message: "not a room" },
        { pointer: "/prompt", message: "empty" },
      ]),
      ["prompt"],
    );
    expect(r).toMatchObject({ line: "space_id: not a room of this workspace", fields: { prompt: "empty" } });
  });

  it("says the detail, or the form's words for the status, when the refusal names no field", () => {
    expect(placeRefusal(new ApiError(409, { code: "run_not_taken", detail: "no runner yet" })).line).toBe(
      "no runner yet",
    );
    expect(placeRefusal(new ApiError(502, null), [], { refused: (s) => `Could not save (${s}).` }).line).toBe(
      "Could not save (502).",
    );
    expect(placeRefusal(new ApiError(403, null)).line).toBe("Refused (403).");
  });

  it("says Chips was not reached when there was no answer, in the form's words", () => {
    expect(placeRefusal(new ApiError(0, null)).line).toBe("Could not reach Chips.");
    expect(placeRefusal(new ApiError(0, null), [], { unreachable: "Offline; your text is kept." }).line).toBe(
      "Offline; your text is kept.",
    );
  });

  it("uses the detail for a fault that came without a message", () => {
    const r = placeRefusal(problem("name is taken", [{ pointer: "/name", message: "" }]), ["name"]);
    expect(r.fields).toEqual({ name: "name is taken" });
  });
});
