export const USAGE = `chips — talk to a Chips server over its HTTP API

Usage:
  chips init [--workspace NAME] [--space NAME] [--harness NAME] [--owner NAME] [--json]
      Create a workspace with a room, a harness and its owner (needs the admin token).
      --json prints one object: workspace_id, space_id, harness_id, token, person_token, room_url.
  chips post FILE|-  [--token TOKEN]
      Post the JSON in FILE (- reads stdin): one event, {"events": [...]}, or an array of
      events (sent as one all-or-nothing batch). Prints each stored event as a JSON line.
  chips events [--workspace WS] [--after N] [--space SPACE] [--limit L] [--token TOKEN]
      Print the token's workspace's events after seq N (default 0) as JSON lines, in seq order,
      paging through all of them; --limit is the page size (1-1000, default 1000).
  chips export RUN [--format json|ndjson] [--output FILE] [--token PERSON_TOKEN]
  chips export [--workspace WS] [--filter "status=failed&q=invoice"] [--format …] [--output FILE]
      Export a run, or the runs of a runs-page view, as one JSON document (default) or as
      NDJSON of the events in seq order (docs/REVIEW.md).
  chips export RUN|--filter Q --otlp URL [--otlp-headers "k=v,k2=v2"]
      Send them as OpenTelemetry GenAI spans to an OTLP/HTTP traces URL (an endpoint without a
      path gets /v1/traces; docs/OTEL.md); a second export sends the same span ids.
  chips import FILE [--workspace WS] [--token PERSON_TOKEN]
      Re-ingest a JSON or NDJSON export into the token's workspace (new seqs, ids mapped); importing
      the same file again stores nothing. Prints each run's old and new id.
  chips login [--workspace WS] [--space SPACE] [--json]
      Print a fresh one-time login link (needs the admin token): for the default room, or
      for a workspace's rooms. Each link works once; give each browser its own.
  chips run pause|resume|cancel RUN  [--timeout S] [--token TOKEN]
  chips run steer RUN "TEXT"          [--timeout S] [--token TOKEN]
      Send a person's command to a run, then print its receipt as it advances, one line
      per state: accepted, delivered, applied or "rejected: <reason>" (waits up to
      --timeout seconds, default 30). Exit 0 applied, 1 rejected or refused, 2 timed out.
  chips run start --repo NAME --prompt "TEXT" [--base BRANCH] [--agent codex|claude]
                  [--profile workspace-write|read-only] [--check "CMD"]... [--secret NAME]...
                  [--model M] [--provider ID] [--instructions "TEXT"] [--space SPACE]
                  [--json] [--token TOKEN]
      Queue a run for a runner (a person's token): it waits, "waiting for a runner", until
      a runner with NAME on its allowlist takes it. Prints the run id and the room.
      --instructions become the agent's system prompt (Claude Code) or developer
      instructions (Codex); --provider (Codex only) picks a provider the runner configured.
  chips people invite --role owner|member|viewer [--expires 7d] [--many-uses] [--workspace WS] [--json]
  chips people list | chips people role usr_… --role R | chips people withdraw inv_…
  chips people revoke usr_…
      Invite by link (single-use unless --many-uses; owner manages people, harnesses and
      runners; member posts, starts and steers runs; viewer watches and reviews); list the
      workspace's people with their tokens and last use, then its open invites; change
      someone's role (their open rooms follow at once); withdraw an invite; or revoke a
      person: their sessions, tokens and open rooms stop at once.
      Needs an owner's person token (--token) or the admin token.
  chips harness token [--name N | --harness hrn_…|rnr_…] | chips harness list
  chips harness revoke hrn_…|rnr_…|tok_…
      Mint a harness and its token, or another token for a harness or runner (shown once);
      list harnesses and runners with their live tokens (tok_…) and last use; revoke a
      harness or runner (all its tokens) or one token, at once, open sockets included.
  chips runner token [--name N] [--workspace WS] [--token OWNER_TOKEN] [--json]
      Mint a runner identity (rnr_…) and its token (an owner's person token, or the admin
      token in the server's default workspace or --workspace).
  chips runner --token T --repo NAME=PATH... [--work-dir DIR] [--capacity N] [--name N]
               [--codex-config KEY=VALUE]... [--codex-env NAME=VALUE]... [--codex-bin P]
               [--codex-model M] [--codex-models M,M] [--claude-base-url URL]
               [--claude-env NAME=VALUE]... [--claude-bin P] [--claude-model M]
               [--claude-models M,M] [--bwrap PATH]
               [--secrets-file FILE] [--cleanup keep|remove] [--ask-seconds N] [--config FILE]
      Dial in to Chips and run agent CLIs for queued runs in their own git worktrees (under
      --work-dir, default ~/.chips-runner). --repo is the allowlist; --codex-config/-env say
      how Codex reaches its model, --claude-* the same for Claude Code (always run in a
      bubblewrap sandbox: --bwrap); --*-models list more models a run may pick (the start form
      offers them); --secrets-file holds NAME=VALUE lines a run may name;
      --ask-seconds: how long a run of the "ask" profile waits for a person (default 300).
      Runs until Ctrl-C (running jobs are stopped, their worktrees kept).
  chips connect claude [--space SPACE] [--settings FILE | --user] [--hold-seconds N]
                       [--stale-seconds N] [--ask-seconds N] [--token T]
      Put the Claude Code sessions you run in this project in a room: hooks added to
      .claude/settings.local.json (existing hooks kept), the token kept in ~/.config/chips
      (0600). Each prompt is a run; Pause/Steer/Cancel reach the session through its hooks;
      permission prompts are asked in the room too (--ask-seconds, default 120).
      Events wait on disk while Chips is away; the sender leaves after --stale-seconds
      (default 1800) without reaching it, and the next hook call starts another.
  chips disconnect claude [--settings FILE | --user]
      Take the hooks out again (the settings file back byte for byte when unchanged since).
  chips connect codex [--space SPACE] [--project DIR] [--codex-bin P] [--token T]
      Mirror the Codex sessions run in DIR (default: here) into a room from Codex's own
      rollout files, until Ctrl-C. Steer reaches an interactive session as its next message
      (codex queue); nothing else gets in, and codex exec sessions are watch-only.
  chips bridge ag-ui URL --prompt "TEXT" [--space SPACE] [--token T]
      Run the AG-UI agent at URL on TEXT, shown in a room (cancel aborts it, steer reruns it
      with the guidance; AG-UI has no pause). docs/CONNECT.md says more.
  chips demo [--space SPACE] [--steps N] [--step-ms MS] [--ask] [--token TOKEN]
      Run the demo harness: a run of N pretend steps (default 5, MS each, default 2000)
      in the room (default: the workspace's first), with status, steps and messages; it
      obeys pause, resume, steer and cancel. --ask: halfway it asks the room for a
      permission and waits for Allow / Deny (5 minutes, then deny). Ctrl-C finishes the
      run failed and exits.
  chips help
      This text.

Options everywhere:
  --url URL          the server (else $CHIPS_URL, else http://localhost:3000)
  --data-dir DIR     the server's data directory, for its token files
                     (else $CHIPS_DATA_DIR, else ./.chips)

Credentials:
  init, login     the admin token: DIR/admin-token with --data-dir, else $CHIPS_ADMIN_TOKEN,
                  else <data dir>/admin-token
  post, events    a harness or person token: --token, else $CHIPS_TOKEN, else the default
                  harness's <data dir>/harness-token
  demo, connect,  a harness token, found the same way
  bridge
  run             a person token: --token, else $CHIPS_TOKEN, else the default owner's
                  <data dir>/person-token
  runner          a runner token (chips runner token) via --token or $CHIPS_TOKEN;
                  "runner token" takes an owner's token or the admin token

Workspace: a command acts in the workspace of the token it uses (GET /api/v1/me);
--workspace may only repeat it (else exit 2). The admin token belongs to none: it
takes --workspace, else the workspace of the default harness.

Exit codes: 0 ok; 1 the server refused (stderr: "error <code>: <detail>" and
"  at <pointer>: <message>" per field); 2 usage error or server unreachable.
chips run: 0 applied, 1 rejected or refused, 2 timed out. chips demo: 0 done or
cancelled, 130/143 stopped by SIGINT/SIGTERM.
`;
