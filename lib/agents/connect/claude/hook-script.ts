const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Tools whose call Claude Code may refuse for want of a permission (`-p` refuses what it would ask about). */
const ASKABLE = ["Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "WebFetch", "AskUserQuestion"];

/** Where the hook script finds what it starts: this Node, the gate, and the drainer's command line. */
export interface HookScriptPaths {
  /** The connection's directory (spool/, sessions/, drainer.pid…). */
  root: string;
  node: string;
  gate: string;
  /** The script that asks the room about a permission prompt (ask.mjs). */
  ask: string;
  /** Arguments after `node` that start the drainer for `root`. */
  drainer: string[];
  /** `setsid` when the system has it: the drainer then leaves the hook's session and process group. */
  setsid: string | null;
}

/**
 * The hook Claude Code runs on every prompt, tool call and stop: POSIX sh and coreutils,
 * because Node's start-up alone (~40-200 ms here) would cost each tool call more than the
 * aim (bench/connect). On the common path it forks three times (date, cat, mv): it queues
 * its input on disk as one file named by the time in ns (the drainer reads the queue in
 * that order, and sends each record once, with its keys, whenever Chips is reachable),
 * and starts the drainer if it is not running (drainer.pid has no final newline, so
 * `read` fails on it though it reads the pid: its status is not the test, `kill -0` is —
 * testing it started a drainer, Node and all, on every call). It writes the new drainer's pid
 * itself, at once ([CON1]): Node takes up to seconds to start and write it, and every hook
 * call meanwhile — a turn's prompt and first tool calls — started another drainer (six for
 * one turn), each a Node start for a lock it then found taken. Only when a command from the
 * room waits for this session (a `gate` file) does it hand over to the Node gate (gate.mjs);
 * and a permission prompt ([CON3]: PermissionRequest; under `claude -p`, whose prompts never
 * show, a PreToolUse of a tool that may need one — [CON5]) goes to ask.mjs, which asks the room.
 * Every failure ends in `exit 0` without output: Chips never breaks the session.
 */
export function hookScript(p: HookScriptPaths): string {
  // From "/": a drainer whose working directory (the project's) was removed while Node was
  // still loading it hung for good in tsx's loader (uv_cwd ENOENT) and was never reaped.
  const start = `cd / && ${p.setsid ? `${q(p.setsid)} ` : ""}"$N" ${p.drainer.map(q).join(" ")} </dev/null >>"$R/drainer.log" 2>&1 &`;
  return `#!/bin/sh
# Chips hook for Claude Code. Written by \`chips connect claude\`; \`chips disconnect claude\` removes it.
R=${q(p.root)}
N=${q(p.node)}
ev=$1
n=$(date +%s%N 2>/dev/null) || exit 0
case $n in ''|*[!0-9]*) exit 0 ;; esac
id=$n-$$
tmp=$R/spool/.in-$id
cat >"$tmp" 2>/dev/null || { rm -f "$tmp"; exit 0; }
pid=
{ read -r pid <"$R/drainer.pid"; kill -0 "$pid"; } 2>/dev/null || { ${start} printf %s "$!" >"$R/drainer.pid"; } 2>/dev/null
sid=
gated=
for g in "$R"/sessions/*/gate; do [ -e "$g" ] && gated=1; break; done
if [ "$ev" = UserPromptSubmit ] || [ -n "$gated" ]; then
  head=$(head -c 200 "$tmp" 2>/dev/null)
  sid=\${head#'{"session_id":"'}
  sid=\${sid%%'"'*}
  case $sid in ''|*[!0-9A-Za-z-]*) sid= ;; esac
fi
if [ "$ev" = UserPromptSubmit ] && [ -n "$sid" ]; then
  mkdir -p "$R/sessions/$sid" 2>/dev/null && echo "$id" >"$R/sessions/$sid/turn"
fi
if [ -n "$sid" ] && [ -e "$R/sessions/$sid/gate" ]; then
  case $ev in PreToolUse|PostToolUse|Stop) exec "$N" ${q(p.gate)} "$R" "$ev" "$tmp" "$sid" "$id" ;; esac
fi
if [ "$ev" = PermissionRequest ]; then exec "$N" ${q(p.ask)} "$R" "$ev" "$tmp" "$id"; fi
if [ "$ev" = PreToolUse ] && [ "$CLAUDE_CODE_ENTRYPOINT" = sdk-cli ] &&
  grep -Eq '"tool_name":"(${ASKABLE.join("|")})"' "$tmp" 2>/dev/null; then
  exec "$N" ${q(p.ask)} "$R" "$ev" "$tmp" "$id"
fi
mv "$tmp" "$R/spool/$id.json" 2>/dev/null
exit 0
`;
}
