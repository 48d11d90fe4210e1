// The one import rule of docs/ARCHITECTURE.md ("What may import what"): each folder of
// product code, and the folders it may import besides itself. ESLint turns it into
// import-x/no-restricted-paths zones (eslint.config.mjs); `npm run layout` reports and
// checks it with type-only imports included (scripts/layout.mjs).

const CORE = [
  "lib/core/async",
  "lib/core/node",
  "lib/core/protocol",
  "lib/core/projection",
  "lib/core/review",
  "lib/core/views",
  "lib/core/routes",
];

/** @type {Record<string, string[]>} */
export const LAYERS = {
  // The kernel every program shares, inner to outer.
  "lib/core/async": [],
  "lib/core/node": [],
  "lib/core/protocol": [],
  "lib/core/projection": ["lib/core/protocol"],
  "lib/core/review": ["lib/core/protocol", "lib/core/projection"],
  "lib/core/views": ["lib/core/protocol", "lib/core/projection", "lib/core/review"],
  // The HTTP routes, declared once: the server mounts them, the browser calls them.
  "lib/core/routes": ["lib/core/protocol", "lib/core/review", "lib/core/views"],
  // Storage.
  db: CORE,
  // One folder per program.
  "lib/server": [...CORE, "db"],
  "lib/browser": CORE,
  "lib/agents": CORE,
  "lib/dev": [...CORE, "db", "lib/server"],
  cli: [...CORE, "lib/agents"],
  // The web app: pages reach the server through its presenters; components never do.
  components: [...CORE, "lib/browser"],
  app: [...CORE, "lib/browser", "lib/server", "components"],
};

/** What no product folder imports: the process entry and the tools around the product. */
export const OUTSIDE = ["server.ts", "scripts", "bench", "test", "e2e"];

/** The folder of LAYERS a path (relative to the repository) belongs to, or null. */
export function layerOf(file) {
  let best = null;
  for (const unit of Object.keys(LAYERS))
    if ((file === unit || file.startsWith(unit + "/")) && (!best || unit.length > best.length)) best = unit;
  return best;
}

/** The folders `unit` may not import. */
export function forbiddenFor(unit) {
  const allowed = new Set([unit, ...LAYERS[unit]]);
  return [...Object.keys(LAYERS).filter((u) => !allowed.has(u)), ...OUTSIDE];
}
