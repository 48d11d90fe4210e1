import { test, expect } from "./support/fixtures";
import { importDoc, seedWorkspace } from "./support/review";
import type { ExportDocument } from "../lib/core/protocol";

/**
 * A page's DOM with ids written alike and each seq written as its rank among the run's
 * events: an import maps ids and takes new seqs ([EXP2]); everything else must match.
 */
function normal(html: string, seqs: number[]): string {
  const rank = new Map(seqs.map((s, i) => [String(s), `seq${i}`]));
  const seq = (n: string) => rank.get(n) ?? n;
  return html
    .replace(/\b(ws|spc|run|evt|hrn|agt|rnr|usr|cmd|ann|shr)_[0-9A-Za-z]{26}\b/g, "$1_…")
    .replace(
      /(data-seq="|>#<!-- -->|seq <!-- -->|–<!-- -->)(\d+)/g,
      (_m, before: string, n: string) => before + seq(n),
    );
}

test.describe("[EXP1] [EXP2] export and import", () => {
  test("a run exported and imported into a fresh workspace has the same run page, DOM for DOM", async ({
    page,
    admin,
    request,
    loginAs,
  }) => {
    test.setTimeout(120_000);
    const source = await admin.newWorkspace({ workspace: "Source", owner: "Dana Whitfield" });
    const s = await seedWorkspace(request, source, { runs: 4, events: 160, seed: 7 });
    const fact =
      s.facts.find((f) => f.status !== "running" && f.status !== "queued" && f.hasChangeSet) ??
      s.facts.find((f) => f.status !== "running" && f.status !== "queued")!;
    const runId = s.ids.get(fact.id)!;
    const exported = await request.get(`/api/v1/runs/${runId}/export`, {
      headers: { authorization: `Bearer ${source.person_token}` },
    });
    expect(exported.status()).toBe(200);
    const doc = (await exported.json()) as ExportDocument;
    expect(doc.runs).toHaveLength(1);

    const target = await admin.newWorkspace({ workspace: "Target", owner: "Dana Whitfield" });
    const answer = await importDoc(request, target, doc);
    const copyId = answer.runs[0].to;
    expect(copyId).not.toBe(runId);

    const seqsOf = async (ws: typeof source, id: string) => {
      const nd = await request.get(`/api/v1/runs/${id}/export?format=ndjson`, {
        headers: { authorization: `Bearer ${ws.person_token}` },
      });
      return (await nd.text())
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as { seq: number }).seq);
    };
    const dom = async (ws: string, id: string) => {
      await loginAs(page, ws === source.workspace_id ? source : target);
      const res = await page.goto(`/w/${ws}/runs/${id}`);
      expect(res!.status()).toBe(200);
      await expect(page.getByTestId("run-page-goal")).toBeVisible();
      return normal(
        await page.getByTestId("run-page").innerHTML(),
        await seqsOf(ws === source.workspace_id ? source : target, id),
      );
    };
    const original = await dom(source.workspace_id, runId);
    const copy = await dom(target.workspace_id, copyId);
    expect(original.length).toBeGreaterThan(2000);
    // Line by line, so a difference names its place.
    expect(copy.split(">")).toEqual(original.split(">"));
  });
});
