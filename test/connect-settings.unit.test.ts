import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  HOOK_EVENTS,
  hookCommand,
  installHooks,
  removeHooks,
  withChipsHooks,
} from "../lib/agents/connect/claude/settings";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-settings-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const SCRIPT = "/home/dana/.config/chips/claude/abc/hook.sh";

describe("chips connect claude: the settings file", () => {
  it("[CON3] adds one Chips group per event after the hooks already there, never replacing one", () => {
    const mine = { type: "command", command: "prettier --write", timeout: 5 };
    const before = JSON.stringify(
      {
        model: "opus",
        hooks: {
          PostToolUse: [{ matcher: "Edit", hooks: [mine] }],
          Stop: [{ hooks: [{ type: "command", command: "say done" }] }],
        },
      },
      null,
      4,
    );
    const after = JSON.parse(withChipsHooks(before, "settings.json", SCRIPT, 600));
    expect(after.model).toBe("opus");
    expect(after.hooks.PostToolUse[0]).toEqual({ matcher: "Edit", hooks: [mine] });
    expect(after.hooks.Stop[0].hooks[0].command).toBe("say done");
    for (const e of HOOK_EVENTS) {
      const ours = after.hooks[e].filter((g: any) => g.hooks[0].command === hookCommand(SCRIPT, e));
      expect(ours, e).toHaveLength(1);
    }
    expect(after.hooks.PreToolUse.at(-1)).toEqual({
      matcher: "*",
      hooks: [{ type: "command", command: hookCommand(SCRIPT, "PreToolUse"), timeout: 630 }],
    });
    // [CON3] The permission prompt waits up to the ask's time (default 120 s), a little longer for Claude Code.
    expect(after.hooks.PermissionRequest.at(-1)).toEqual({
      matcher: "*",
      hooks: [{ type: "command", command: hookCommand(SCRIPT, "PermissionRequest"), timeout: 150 }],
    });
    // Connecting again replaces only Chips' own entries; PreToolUse waits for the longer of a hold and an ask.
    const again = JSON.parse(withChipsHooks(JSON.stringify(after), "settings.json", SCRIPT, 60, 20));
    expect(again.hooks.PostToolUse).toHaveLength(2);
    expect(again.hooks.PreToolUse.at(-1).hooks[0].timeout).toBe(90);
    expect(again.hooks.PermissionRequest.at(-1).hooks[0].timeout).toBe(50);
    expect(again.hooks.PermissionRequest).toHaveLength(1);
  });

  it("refuses settings it cannot read instead of overwriting them", () => {
    expect(() => withChipsHooks("{ not json", "s.json", SCRIPT, 600)).toThrow(/not valid JSON/);
    expect(() => withChipsHooks('{"hooks": []}', "s.json", SCRIPT, 600)).toThrow(/"hooks" is not an object/);
  });

  it("disconnect restores the file byte for byte (odd formatting, no trailing newline)", () => {
    const file = path.join(dir, "proj", ".claude", "settings.local.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const original = Buffer.from(
      '{\r\n\t"permissions" : {"allow":["Bash"]},   "hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}',
    );
    fs.writeFileSync(file, original);
    const backup = path.join(dir, "backup.json");
    installHooks(file, backup, SCRIPT, 600);
    expect(fs.readFileSync(file, "utf8")).toContain(SCRIPT);
    installHooks(file, backup, SCRIPT, 600); // twice: the backup still holds the first original
    expect(removeHooks(backup, SCRIPT).restored).toBe("exact");
    expect(fs.readFileSync(file).equals(original)).toBe(true);
  });

  it("disconnect removes a file (and the folders) connect created", () => {
    const file = path.join(dir, "proj", ".claude", "settings.local.json");
    fs.mkdirSync(path.join(dir, "proj"));
    installHooks(file, path.join(dir, "backup.json"), SCRIPT, 600);
    expect(fs.existsSync(file)).toBe(true);
    expect(removeHooks(path.join(dir, "backup.json"), SCRIPT).restored).toBe("exact");
    expect(fs.existsSync(path.join(dir, "proj", ".claude"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "proj"))).toBe(true);
  });

  it("a file edited since connect keeps the edit: only Chips' entries go", () => {
    const file = path.join(dir, "settings.json");
    fs.writeFileSync(file, '{"model":"opus"}');
    installHooks(file, path.join(dir, "backup.json"), SCRIPT, 600);
    const edited = JSON.parse(fs.readFileSync(file, "utf8"));
    edited.theme = "dark";
    fs.writeFileSync(file, JSON.stringify(edited));
    expect(removeHooks(path.join(dir, "backup.json"), SCRIPT).restored).toBe("entries-only");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ model: "opus", theme: "dark" });
  });
});
