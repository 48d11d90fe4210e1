export const USAGE = `chips — talk to a Chips server over its HTTP API

Usage:
  chips init [--workspace NAME] [--space NAME] [--harness NAME] [--owner NAME] [--json]
      Create a workspace with a room, a harness and its owner (needs the admin token).
      --json prints one object: workspace_id, space_id, harness_id, token, person_token, room_url.
  chips post FILE|-  [--token TOKEN]
      Post the JSON in FILE (- reads stdin): one event, {"events": [...]}, or an array of
      events (sent as one all-or-nothing batch). Prints each stored event as a JSON line.
  chips events --workspace WS [--after N] [--space SPACE] [--limit L] [--token TOKEN]
      Print the workspace's events after seq N (default 0) as JSON lines, in seq order,
      paging through all of them; --limit is the page size (1-1000, default 1000).
  chips login [--workspace WS] [--space SPACE] [--json]
      Print a fresh one-time login link (needs the admin token): for the default room, or
      for a workspace's rooms. Each link works once; give each browser its own.
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

Exit codes: 0 ok; 1 the server refused (stderr: "error <code>: <detail>" and
"  at <pointer>: <message>" per field); 2 usage error or server unreachable.
`;
