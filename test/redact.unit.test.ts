import { describe, expect, it } from "vitest";
import { redact } from "@/lib/core/protocol/redact";

describe("[TOOL3] what a tool call says is redacted before it leaves the machine", () => {
  it("[TOOL3] values named like secrets, auth headers, URL credentials and known token shapes are replaced; the rest is kept", () => {
    const cases: Array<[string, string]> = [
      ["GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 npm publish", "GITHUB_TOKEN=[redacted] npm publish"],
      ["export API_KEY='x y z'; make", "export API_KEY=[redacted]; make"],
      [
        'curl -H "Authorization: Bearer abc.def.ghi123" https://x',
        'curl -H "Authorization: Bearer [redacted]" https://x',
      ],
      ["git clone https://me:hunter2pass@github.com/a/b", "git clone https://me:[redacted]@github.com/a/b"],
      ["echo sk-ant-api03-AAAABBBBCCCCDDDDEEEE", "echo [redacted]"],
      ["aws s3 ls # AKIAIOSFODNN7EXAMPLE", "aws s3 ls # [redacted]"],
      ["psql --password=s3cret db", "psql --password=[redacted] db"],
      ["npm test -- --run src/token.test.ts", "npm test -- --run src/token.test.ts"],
      ["cat README.md", "cat README.md"],
    ];
    for (const [raw, want] of cases) expect(redact(raw), raw).toBe(want);
  });
});
