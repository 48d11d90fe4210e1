import type { APIRequestContext } from "@playwright/test";
import type { Harness, Workspace } from "./api";
import { Person, TestRun } from "./runs";

/** A room with what people see on a busy day: runs in every state, receipts, markdown, a typing harness. */
export async function seedBusyRoom(request: APIRequestContext, ws: Workspace, harness: Harness) {
  const person = new Person(request, ws);
  await person.message("Can someone get **PO #4471** confirmed with Northwind and update the tracker?");
  const po = new TestRun(harness, ws);
  await po.start({
    goal: "Can someone get **PO #4471** confirmed with Northwind and update the tracker?",
    goal_from: "chips",
    session_ref: "codex://term-1",
    plan: [
      { step_id: "read", title: "Read PO #4471" },
      { step_id: "crm", title: "Check the Northwind record in the CRM" },
      { step_id: "mail", title: "Email Dana to confirm" },
      { step_id: "tracker", title: "Update the tracker" },
      { step_id: "report", title: "Report back" },
    ],
  });
  await po.step("read", "done");
  await po.step("crm", "active");
  await harness.post(
    harness.message(
      "PO #4471 is for 1,200 units; the CRM shows Northwind's contact changed last week:\n\n```sh\ncrm lookup northwind --fields contact,terms\n```",
    ),
  );
  const steer = await person.command(po.id, "steer", "Use the new contact, not the old one");
  await po.ack(steer.command_id);
  await po.status({ verb_phrase: "Checking the Northwind record in the CRM…", progress: 0.35, estimate_seconds: 95 });

  const flaky = new TestRun(harness, ws);
  await flaky.start({
    goal: "Fix the flaky checkout test",
    goal_from: "harness",
    session_ref: "claude://sessions/a7",
    plan: [
      { step_id: "1", title: "Reproduce" },
      { step_id: "2", title: "Find the race" },
      { step_id: "3", title: "Patch and re-run 50×" },
    ],
  });
  await flaky.step("1", "done");
  await flaky.step("2", "failed");
  const pause = await person.command(flaky.id, "pause");
  await flaky.ack(pause.command_id);

  const audit = new TestRun(harness, ws);
  await audit.start({
    goal: "Nightly dependency audit",
    plan: [
      { step_id: "x", title: "npm audit" },
      { step_id: "y", title: "Open PRs" },
    ],
  });
  await audit.step("x", "done");
  await audit.step("y", "skipped");
  await audit.finish("succeeded", "No vulnerable dependencies.");
  await person.message("Thanks — ping me when the tracker is updated.");
  return { po, flaky, audit };
}
