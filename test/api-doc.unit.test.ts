import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { API_DOC, withRouteList } from "../scripts/docs-api";

describe("[HTTP5] docs/API.md's route list", () => {
  it("[HTTP5] is the one the route table writes (npm run docs:api)", () => {
    const doc = fs.readFileSync(API_DOC, "utf8");
    expect(doc, "docs/API.md's route list is not current: run npm run docs:api").toBe(withRouteList(doc));
  });
});
